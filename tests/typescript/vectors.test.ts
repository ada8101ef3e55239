// Runs every schema vector of tests/vectors/<protocol>/*.json against the generated package:
// valid cases parse and survive a JSON round trip; invalid cases report exactly the expected
// multiset of (pointer, keyword) pairs.

import { strict as assert } from "node:assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { ValidationError } from "../pkg/src/index.js";
import type { Violation } from "../pkg/src/index.js";

interface Case {
  description: string;
  valid: boolean;
  instance: unknown;
  errors?: { pointer: string; keyword: string }[];
}

interface VectorFile {
  schema: string;
  type: string;
  pointer: string;
  cases: Case[];
}

type Api = {
  validate: (v: unknown) => Violation[];
  parse: (v: unknown) => unknown;
  is: (v: unknown) => boolean;
};

const root = process.env["CTXGEN_VECTORS"] ?? "tests/vectors";
// Schema location (`common.json#/$defs/ContextPath`) → generated type name and module.
const typeNames = JSON.parse(
  readFileSync(process.env["CTXGEN_TS_NAMES"] ?? "names.json", "utf8"),
) as { [location: string]: { name: string; module: string } };
const modules = new Map<string, { [name: string]: unknown }>();
for (const { module } of Object.values(typeNames)) {
  if (!modules.has(module)) {
    const m = (await import(`../pkg/src/${module}.js`)) as object;
    modules.set(module, m as { [name: string]: unknown });
  }
}
function api(type: string, module: string): Api {
  const members = modules.get(module) ?? {};
  const validate = members[`validate${type}`];
  const parse = members[`parse${type}`];
  const is = members[`is${type}`];
  if (
    typeof validate !== "function" ||
    typeof parse !== "function" ||
    typeof is !== "function"
  ) {
    throw new Error(`the package has no validate/parse/is for ${type}`);
  }
  return { validate, parse, is } as Api;
}

function pairs(list: readonly { pointer: string; keyword: string }[]) {
  return list
    .map((v) => `${v.pointer} ${v.keyword}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const counts = { valid: 0, invalid: 0 };

for (const protocol of readdirSync(root).sort()) {
  const dir = join(root, protocol);
  if (protocol === "helpers" || !statSync(dir).isDirectory()) continue;
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".json")) continue;
    const vectors = JSON.parse(
      readFileSync(join(dir, file), "utf8"),
    ) as VectorFile;
    describe(`${protocol}/${file} (${vectors.type})`, () => {
      const entry = typeNames[`${vectors.schema}#${vectors.pointer}`];
      if (entry === undefined) {
        throw new Error(
          `no generated type for ${vectors.schema}#${vectors.pointer}`,
        );
      }
      const { validate, parse, is } = api(entry.name, entry.module);
      for (const c of vectors.cases) {
        if (c.valid) counts.valid++;
        else counts.invalid++;
        test(c.description, () => {
          if (c.valid) {
            assert.deepEqual(validate(c.instance), []);
            assert.equal(is(c.instance), true);
            const parsed = parse(c.instance);
            const back: unknown = JSON.parse(JSON.stringify(parsed));
            assert.deepEqual(back, parsed);
          } else {
            const got = validate(c.instance);
            assert.deepEqual(pairs(got), pairs(c.errors ?? []));
            assert.equal(is(c.instance), false);
            assert.throws(
              () => parse(c.instance),
              (e: unknown) =>
                e instanceof ValidationError &&
                e.violations.length === got.length,
            );
          }
        });
      }
    });
  }
}

test("vector counts", () => {
  console.log(
    `schema vectors: ${counts.valid} valid, ${counts.invalid} invalid`,
  );
  assert.ok(counts.valid + counts.invalid >= 800);
});
