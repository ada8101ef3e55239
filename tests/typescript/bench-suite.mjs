// The TypeScript harness of ctxgen-bench (tools/src/bin/bench/FORMAT.md): times the generated
// validators (ctxgen), ajv and TypeBox on the workloads of a manifest and writes the result file.
//
// Usage: node tests/typescript/bench-suite.mjs <manifest.json> <results.json>
//
// Peers, per workload (all of its items, one pass = every item once), in bench-peers.mjs:
//   json    floor   JSON.parse of each item's text
//   ctxgen  check   isT(value)            errors  validateT(value) (the list of violations)
//           parse   parseT(JSON.parse(text)) (throws on an invalid value)
//   ajv     check   allErrors: false      errors  allErrors: true (validate.errors, all of them)
//           Ajv2020 / Ajv2019 / Ajv (draft-07, and draft-06 with its meta-schema) / ajv-draft-04
//           by the target file's draft, with the formats of ajv-formats.
//   typebox check   TypeCompiler.Compile(T).Check(value)   errors  [...Errors(value)]
//           T is converted from the JSON Schema by `TypeBoxConverter` (bench-typebox.mjs); a
//           schema using a keyword TypeBox cannot express with the same meaning is skipped
//           with the reason.
// Timing: warm up for warmup_ms (at least one pass), then passes until min_runs passes and
// min_time_ms in all; the median of the per-pass times (process.hrtime.bigint).

import {
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { peersFor, sink } from "./bench-peers.mjs";
import { errorText } from "./bench-typebox.mjs";

const here = dirname(fileURLToPath(import.meta.url));

const [manifestPath, resultsPath] = process.argv.slice(2);
if (!manifestPath || !resultsPath) {
  console.error(
    "usage: node tests/typescript/bench-suite.mjs <manifest.json> <results.json>",
  );
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));

const versionOf = (name) =>
  JSON.parse(readFileSync(join(here, "node_modules", name, "package.json")))
    .version;

const work = mkdtempSync(join(tmpdir(), "ctxgen-bench-ts-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
// Compiled packages resolve their imports (e.g. re2js) from the harness's node_modules.
symlinkSync(join(here, "node_modules"), join(work, "node_modules"), "dir");

const peers = peersFor(manifest, work);

// ---------------------------------------------------------------- timing

const hr = process.hrtime.bigint;

/** {median_ns, runs, mismatches}: `pass()` runs once per item and returns the mismatches. */
function measure(pass) {
  const warmup = BigInt(Math.round((manifest.warmup_ms ?? 0) * 1e6));
  const minTime = BigInt(Math.round((manifest.min_time_ms ?? 0) * 1e6));
  const minRuns = Math.max(1, manifest.min_runs ?? 1);
  let mismatches;
  const w0 = hr();
  do {
    const m = pass();
    if (mismatches === undefined) mismatches = m;
  } while (hr() - w0 < warmup);
  const times = [];
  let total = 0n;
  while (times.length < minRuns || total < minTime) {
    const t0 = hr();
    pass();
    const dt = hr() - t0;
    times.push(dt);
    total += dt;
  }
  times.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = times.length >> 1;
  const median =
    times.length % 2 === 1
      ? Number(times[mid])
      : Math.round((Number(times[mid - 1]) + Number(times[mid])) / 2);
  return { median_ns: median, runs: times.length, mismatches };
}

// ---------------------------------------------------------------- main

const results = [];
for (const w of manifest.workloads) {
  let items;
  try {
    items = w.items.map((it) => {
      const target = manifest.targets[it.target];
      if (!target) throw new Error(`no target ${it.target}`);
      const text = readFileSync(it.file, "utf8");
      return { target, text, value: JSON.parse(text) };
    });
  } catch (e) {
    for (const p of peers)
      results.push({
        workload: w.id,
        impl: p.impl,
        mode: p.mode,
        skipped: `cannot read the items: ${errorText(e)}`,
      });
    continue;
  }
  const want = w.expect === "valid";
  for (const p of peers) {
    const entry = { workload: w.id, impl: p.impl, mode: p.mode };
    try {
      const pass = await p.prepare(items, want);
      const r = measure(pass);
      if (p.mode === "floor") r.mismatches = 0;
      Object.assign(entry, r);
      console.error(
        `${w.id.padEnd(28)} ${p.impl.padEnd(8)} ${p.mode.padEnd(7)} ${(r.median_ns / 1e6).toFixed(3).padStart(10)} ms  runs ${r.runs}  mismatches ${r.mismatches}`,
      );
    } catch (e) {
      entry.skipped = errorText(e);
      console.error(
        `${w.id.padEnd(28)} ${p.impl.padEnd(8)} ${p.mode.padEnd(7)} skipped: ${entry.skipped}`,
      );
    }
    results.push(entry);
  }
}

writeFileSync(
  resolve(resultsPath),
  JSON.stringify(
    {
      language: "typescript",
      runtime: `node ${process.version}`,
      versions: {
        ajv: versionOf("ajv"),
        "ajv-draft-04": versionOf("ajv-draft-04"),
        "ajv-formats": versionOf("ajv-formats"),
        typebox: versionOf("@sinclair/typebox"),
        typescript: versionOf("typescript"),
      },
      results,
    },
    null,
    2,
  ) + "\n",
);
if (sink === 0.5) console.error(""); // keeps `sink` observable
