// Benchmark of hostile instances in the generated TypeScript code (the same workloads as
// benches/bounded.rs and tests/python/bench.py): nesting 100 000 levels deep, as a value and
// as JSON text (TypeScript has no text entry point: `JSON.parse`, then the validator), and
// `uniqueItems` over 100 000 items. Prints the times and the verdicts.
//
// Usage: (cd tests/typescript && npm ci) && node tests/typescript/bench-bounded.mjs
// (also run at the end of bench.mjs). Generates tests/fixtures/bounded/ with cargo.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

const work = mkdtempSync(join(tmpdir(), "ctxgen-bounded-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
execFileSync(
  "cargo",
  [
    "run",
    "--quiet",
    "--bin",
    "ctxgen",
    "--",
    "generate",
    "--lang",
    "typescript",
    "--schemas",
    join(root, "tests/fixtures/bounded"),
    "--out",
    join(work, "gen"),
  ],
  { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
);
symlinkSync(
  join(here, "node_modules"),
  join(work, "gen/typescript/node_modules"),
);
execFileSync(
  join(here, "node_modules/.bin/tsc"),
  [
    "-p",
    join(work, "gen/typescript/tsconfig.json"),
    "--outDir",
    join(work, "out"),
    "--declaration",
    "false",
    "--sourceMap",
    "false",
  ],
  { stdio: "inherit" },
);
const pkg = await import(pathToFileURL(join(work, "out/index.js")).href);
const { MAX_DEPTH } = await import(
  pathToFileURL(join(work, "out/runtime.js")).href
);

/** The median time of five runs, in milliseconds, and the last result. */
function time(f) {
  const runs = [];
  let out;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    out = f();
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  return [runs[2], out];
}

function verdict(violations) {
  if (violations.length === 0) return "valid";
  const v = violations[0];
  const depth = v.pointer.split("/").length - 1;
  return `${violations.length} violation(s), first ${v.keyword} at depth ${depth}`;
}

function report(label, [ms, result]) {
  console.log(
    `  ${label.padEnd(44)} ${ms.toFixed(3).padStart(10)} ms   ${result}`,
  );
}

const DEPTH = 100000;
const ITEMS = 100000;
const arrays = (depth) => {
  let v = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const tree = (depth) => {
  let v = { value: "x" };
  for (let i = 0; i < depth; i++) v = { value: "x", next: v };
  return v;
};

console.log(`\nTypeScript (node ${process.version}), MAX_DEPTH = ${MAX_DEPTH}`);
console.log(`nesting ${DEPTH} deep, value entry point (validateX, isX):`);
const deepArrays = arrays(DEPTH);
report(
  "Json: arrays, validateJson",
  time(() => verdict(pkg.validateJson(deepArrays))),
);
report(
  "Json: arrays, isJson",
  time(() => String(pkg.isJson(deepArrays))),
);
const deepTree = tree(DEPTH);
report(
  "Tree: next, validateTree",
  time(() => verdict(pkg.validateTree(deepTree))),
);
report(
  "Tree: next, isTree",
  time(() => String(pkg.isTree(deepTree))),
);
console.log(`nesting ${DEPTH} deep, text (JSON.parse, then validateX):`);
const arraysText = "[".repeat(DEPTH) + "]".repeat(DEPTH);
report(
  "Json: arrays",
  time(() => verdict(pkg.validateJson(JSON.parse(arraysText)))),
);
const treeText =
  '{"value":"x","next":'.repeat(DEPTH) + '{"value":"x"}' + "}".repeat(DEPTH);
report(
  "Tree: next",
  time(() => verdict(pkg.validateTree(JSON.parse(treeText)))),
);
console.log(`uniqueItems over ${ITEMS} items:`);
const numbers = Array.from({ length: ITEMS }, (_, i) => i);
report(
  "distinct numbers",
  time(() => verdict(pkg.validateUnique(numbers))),
);
const numbersDup = [...numbers.slice(0, -1), 0.0];
report(
  "numbers, the last equal to the first (0.0)",
  time(() => verdict(pkg.validateUnique(numbersDup))),
);
const objects = Array.from({ length: ITEMS }, (_, i) => ({
  id: i,
  tags: ["a", i],
}));
report(
  "distinct objects",
  time(() => verdict(pkg.validateUnique(objects))),
);
const objectsDup = [...objects.slice(0, -1), { tags: ["a", 0], id: 0.0 }];
report(
  "objects, the last equal to the first",
  time(() => verdict(pkg.validateUnique(objectsDup))),
);
// The pattern case (`^(a+)+$` on a long string of `a`s with a trailing `b`) goes here.
