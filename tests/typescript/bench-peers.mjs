// The peers of the TypeScript harness of ctxgen-bench (bench-suite.mjs): the schema files of
// each set, the generated package (ctxgen), ajv and TypeBox, and per (impl, mode) how a pass
// over a workload's items is prepared.

import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";

import { errorText, TypeBoxConverter } from "./bench-typebox.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

let manifest;
let work;

/** XOR of results the passes would otherwise discard (read by the runner once, at the end). */
export let sink = 0;

/**
 * The peers for a manifest; `workDir` holds the compiled packages (its node_modules links to
 * the harness's).
 */
export function peersFor(m, workDir) {
  manifest = m;
  work = workDir;
  return peers;
}

// ---------------------------------------------------------------- schema files of a set

const sets = new Map();
function setInfo(name) {
  let s = sets.get(name);
  if (s) return s;
  const spec = manifest.sets[name];
  if (!spec) throw new Error(`no set ${name} in the manifest`);
  const files = spec.files.map((f) => {
    const schema = JSON.parse(readFileSync(f.path, "utf8"));
    const base = stripFragment(f.id ?? pathToFileURL(f.path).href);
    return { ...f, schema, base, draft: String(f.draft ?? "7") };
  });
  const byName = new Map(files.map((f) => [f.name, f]));
  const byBase = new Map(files.map((f) => [f.base, f]));
  for (const f of files) byBase.set(stripFragment(`file://${f.path}`), f);
  const maxWords = files.some((f) => hasKey(f.schema, "x-max-words"));
  s = { name, spec, files, byName, byBase, maxWords, pkg: undefined };
  sets.set(name, s);
  return s;
}

function stripFragment(uri) {
  const i = uri.indexOf("#");
  return i < 0 ? uri : uri.slice(0, i);
}

function hasKey(node, key) {
  if (Array.isArray(node)) return node.some((x) => hasKey(x, key));
  if (node === null || typeof node !== "object") return false;
  return Object.entries(node).some(([k, v]) => k === key || hasKey(v, key));
}

// ---------------------------------------------------------------- ctxgen (generated package)

function ctxgenPackage(set) {
  if (set.pkg === undefined) {
    set.pkg = (async () => {
      const dir = set.spec.typescript?.dir;
      if (!dir) throw new Error("the set has no typescript package");
      const slot = mkdtempSync(join(work, "pkg-"));
      const src = join(slot, "src");
      const out = join(slot, "out");
      cpSync(join(dir, "src"), src, { recursive: true });
      cpSync(join(dir, "tsconfig.json"), join(slot, "tsconfig.json"));
      writeFileSync(join(slot, "package.json"), '{"type": "module"}\n');
      mkdirSync(out);
      writeFileSync(join(out, "package.json"), '{"type": "module"}\n');
      try {
        execFileSync(
          join(here, "node_modules/.bin/tsc"),
          [
            "-p",
            join(slot, "tsconfig.json"),
            "--outDir",
            out,
            "--declaration",
            "false",
            "--sourceMap",
            "false",
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
      } catch (e) {
        const msg = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim();
        throw new Error(`tsc failed: ${msg.split("\n")[0] || errorText(e)}`);
      }
      // The index exports a helper instead of a type's function of the same name (the
      // helper `parseContextPath` beside the type's); the type modules export their own.
      const index = await import(pathToFileURL(join(out, "index.js")).href);
      const types = {};
      const skip = new Set([
        "index.js",
        "helpers.js",
        "runtime.js",
        "validators.js",
      ]);
      for (const f of readdirSync(out).filter(
        (f) => f.endsWith(".js") && !skip.has(f),
      ))
        Object.assign(types, await import(pathToFileURL(join(out, f)).href));
      return { ...index, ...types };
    })();
    set.pkg.catch(() => {});
  }
  return set.pkg;
}

// ---------------------------------------------------------------- ajv

const ajvs = new Map();
const countWords = (s) => (s.match(/[^ \t\n\v\f\r]+/g) ?? []).length;
function ajvInstance(set, draft, allErrors) {
  const key = `${set.name}\0${draft}\0${allErrors}`;
  let a = ajvs.get(key);
  if (a) return a;
  const opts = { strict: false, allErrors, logger: false };
  if (draft === "2020-12") a = new Ajv2020(opts);
  else if (draft === "2019-09") a = new Ajv2019(opts);
  else if (draft === "7") a = new Ajv(opts);
  else if (draft === "6") {
    a = new Ajv(opts);
    a.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json"));
  } else if (draft === "4") a = new AjvDraft04(opts);
  else throw new Error(`draft ${draft} is not implemented by ajv`);
  addFormats(a);
  if (set.maxWords) {
    a.addKeyword({
      keyword: "x-max-words",
      type: "string",
      schemaType: "number",
      validate: (max, s) => countWords(s) <= max,
    });
  }
  for (const f of set.files) {
    try {
      if (f.id) a.addSchema(f.schema);
      else a.addSchema(f.schema, pathToFileURL(f.path).href);
    } catch {
      // A file of another draft; the targets that need it fail in getSchema.
    }
  }
  ajvs.set(key, a);
  return a;
}

function ajvValidator(target, allErrors) {
  const set = setInfo(target.set);
  const file = set.byName.get(target.file);
  if (!file) throw new Error(`no file ${target.file} in set ${target.set}`);
  const v = ajvInstance(set, file.draft, allErrors).getSchema(target.uri);
  if (!v) throw new Error(`ajv cannot resolve ${target.uri}`);
  return v;
}

// ---------------------------------------------------------------- TypeBox

const converters = new Map();
function typeboxCompiled(target) {
  const set = setInfo(target.set);
  let c = converters.get(set.name);
  if (!c) converters.set(set.name, (c = new TypeBoxConverter(set)));
  try {
    return c.compile(target);
  } catch (e) {
    // A failed conversion leaves no half-converted definitions behind.
    converters.delete(set.name);
    throw e;
  }
}

// ---------------------------------------------------------------- peers

/** Each peer: prepare(items, want) -> a pass function, or throws (the peer is skipped). */
const peers = [
  {
    impl: "json",
    mode: "floor",
    prepare: (items) => () => {
      for (const it of items) sink ^= JSON.parse(it.text) === null ? 1 : 0;
      return 0;
    },
  },
  ...["check", "errors", "parse"].map((mode) => ({
    impl: "ctxgen",
    mode,
    async prepare(items, want) {
      const fns = [];
      // A parse of an invalid item must throw the package's ValidationError; anything else
      // thrown is a failure of the binding, not a verdict.
      const errors = [];
      for (const it of items) {
        const pkg = await ctxgenPackage(setInfo(it.target.set));
        errors.push(pkg.ValidationError);
        const name = `${{ check: "is", errors: "validate", parse: "parse" }[mode]}${it.target.typescript}`;
        if (typeof pkg[name] !== "function")
          throw new Error(`the package exports no ${name}`);
        fns.push(pkg[name]);
      }
      if (mode === "check")
        return () => {
          let m = 0;
          for (let i = 0; i < items.length; i++)
            if (fns[i](items[i].value) !== want) m++;
          return m;
        };
      if (mode === "errors")
        return () => {
          let m = 0;
          for (let i = 0; i < items.length; i++) {
            const r = fns[i](items[i].value);
            sink ^= r.length;
            if ((r.length === 0) !== want) m++;
          }
          return m;
        };
      return () => {
        let m = 0;
        for (let i = 0; i < items.length; i++) {
          let ok = true;
          try {
            sink ^= fns[i](JSON.parse(items[i].text)) === null ? 1 : 0;
          } catch (e) {
            if (!(e instanceof errors[i])) throw e;
            ok = false;
          }
          if (ok !== want) m++;
        }
        return m;
      };
    },
  })),
  ...["check", "errors"].map((mode) => ({
    impl: "ajv",
    mode,
    prepare(items, want) {
      const fns = items.map((it) => ajvValidator(it.target, mode === "errors"));
      if (mode === "check")
        return () => {
          let m = 0;
          for (let i = 0; i < items.length; i++)
            if (fns[i](items[i].value) !== want) m++;
          return m;
        };
      return () => {
        let m = 0;
        for (let i = 0; i < items.length; i++) {
          const f = fns[i];
          const ok = f(items[i].value);
          sink ^= f.errors?.length ?? 0;
          if (ok !== want) m++;
        }
        return m;
      };
    },
  })),
  ...["check", "errors"].map((mode) => ({
    impl: "typebox",
    mode,
    prepare(items, want) {
      const byTarget = new Map();
      const fns = items.map((it) => {
        let c = byTarget.get(it.target);
        if (!c) byTarget.set(it.target, (c = typeboxCompiled(it.target)));
        return c;
      });
      if (mode === "check")
        return () => {
          let m = 0;
          for (let i = 0; i < items.length; i++)
            if (fns[i].Check(items[i].value) !== want) m++;
          return m;
        };
      return () => {
        let m = 0;
        for (let i = 0; i < items.length; i++) {
          const errors = [...fns[i].Errors(items[i].value)];
          sink ^= errors.length;
          if ((errors.length === 0) !== want) m++;
        }
        return m;
      };
    },
  })),
];
