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
// Timing: each pass warms up for warmup_ms (at least one pass); then a workload's passes take
// turns in rounds, each for min_time_ms / 10 a round, until each has min_runs passes and
// min_time_ms in all; the median of its per-pass times (process.hrtime.bigint).

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

/** The rounds a measurement is spread over: each pass runs for `min_time_ms / ROUNDS` a round. */
const ROUNDS = 10;

const warmup = BigInt(Math.round((manifest.warmup_ms ?? 0) * 1e6));
const minTime = BigInt(Math.round((manifest.min_time_ms ?? 0) * 1e6));
const minRuns = Math.max(1, manifest.min_runs ?? 1);

/** A sample times passes in a row for at least this long (FORMAT.md, "Timing"). */
const SAMPLE = 10_000n;

/**
 * The first pass's mismatches, then passes for the warm-up time; with the number of passes a
 * sample takes, from their times.
 */
function warm(pass) {
  let mismatches;
  let passes = 0n;
  const w0 = hr();
  do {
    const m = pass();
    passes += 1n;
    if (mismatches === undefined) mismatches = m;
  } while (hr() - w0 < warmup);
  const each = (hr() - w0) / passes;
  const batch =
    each >= SAMPLE ? 1 : Number(SAMPLE / (each > 0n ? each : 1n)) + 1;
  return { mismatches, batch };
}

/**
 * Times the warmed-up passes of a workload per FORMAT.md ("Timing"): they take turns, round
 * after round, each running for a slice of the time, until every one has `min_runs` passes
 * and `min_time_ms` in all, so that a stretch in which the machine is slower slows every
 * implementation alike. `timed[i].times` gets pass i's times; a pass that throws gets `error`
 * and leaves the rounds.
 */
function measure(timed) {
  const slice = minTime / BigInt(ROUNDS);
  const pending = (t) =>
    t.error === undefined && (t.times.length < minRuns || t.total < minTime);
  while (timed.some(pending)) {
    for (const t of timed) {
      if (t.error !== undefined) continue;
      try {
        const begin = hr();
        do {
          const t0 = hr();
          for (let i = 0; i < t.batch; i++) t.pass();
          const dt = hr() - t0;
          t.times.push(dt / BigInt(t.batch));
          t.total += dt;
        } while (hr() - begin < slice);
      } catch (e) {
        t.error = e;
      }
    }
  }
}

/** {median_ns, runs} of a pass's times. */
function median(times) {
  times.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = times.length >> 1;
  const median_ns =
    times.length % 2 === 1
      ? Number(times[mid])
      : Math.round((Number(times[mid - 1]) + Number(times[mid])) / 2);
  return { median_ns, runs: times.length };
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
  const entries = [];
  const timed = [];
  for (const p of peers) {
    const entry = { workload: w.id, impl: p.impl, mode: p.mode };
    entries.push(entry);
    try {
      const pass = await p.prepare(items, want);
      const { mismatches, batch } = warm(pass);
      timed.push({
        entry,
        pass,
        batch,
        mismatches,
        times: [],
        total: 0n,
        error: undefined,
      });
    } catch (e) {
      entry.skipped = errorText(e);
    }
  }
  measure(timed);
  for (const t of timed) {
    if (t.error !== undefined) {
      t.entry.skipped = errorText(t.error);
      continue;
    }
    const r = median(t.times);
    Object.assign(t.entry, r, {
      mismatches: t.entry.mode === "floor" ? 0 : t.mismatches,
    });
  }
  for (const entry of entries) {
    const what = `${w.id.padEnd(28)} ${entry.impl.padEnd(8)} ${entry.mode.padEnd(7)}`;
    console.error(
      entry.skipped !== undefined
        ? `${what} skipped: ${entry.skipped}`
        : `${what} ${(entry.median_ns / 1e6).toFixed(3).padStart(10)} ms  runs ${entry.runs}  mismatches ${entry.mismatches}`,
    );
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
