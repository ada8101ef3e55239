// Benchmark of hostile instances in the generated TypeScript code (the same workloads as
// benches/bounded.rs and tests/python/bench.py): nesting 100 000 levels deep, as a value and
// as JSON text (TypeScript has no text entry point: `JSON.parse`, then the validator),
// `uniqueItems` over 100 000 items, and `^(a+)+$` on 10 000 characters. The peers: ajv compiled
// from the same fixture (nesting, uniqueItems) and RegExp (backtracking) on the same pattern.
// Prints the times and the verdicts.
//
// Usage: (cd tests/typescript && npm ci) && node tests/typescript/bench-bounded.mjs
// (also run at the end of bench.mjs). Generates tests/fixtures/bounded/ with cargo.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";

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
// The package and its compiled form resolve their dependencies (re2js) from the harness.
symlinkSync(
  join(here, "node_modules"),
  join(work, "gen/typescript/node_modules"),
);
symlinkSync(join(here, "node_modules"), join(work, "node_modules"));
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

// The peer: ajv, compiled from the same fixture schema.
const fixture = JSON.parse(
  readFileSync(join(root, "tests/fixtures/bounded/bounded.json"), "utf8"),
);
const ajv = new Ajv2020({ strict: false, allErrors: false });
ajv.addSchema(fixture);
const peer = (name) => {
  const check = ajv.getSchema(`${fixture.$id}#/$defs/${name}`);
  return (value) => {
    try {
      return check(value) ? "valid" : "invalid";
    } catch (e) {
      return `throws ${e.name}`;
    }
  };
};

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
report(
  "peer: ajv, Json: arrays",
  time(() => peer("Json")(deepArrays)),
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
report(
  "peer: ajv, Tree: next",
  time(() => peer("Tree")(deepTree)),
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
// ajv compares every pair of items (quadratic): the peer gets 10 000 of the objects.
const PEER_ITEMS = 10000;
const fewObjects = objects.slice(0, PEER_ITEMS);
const fewDup = [...fewObjects.slice(0, -1), { tags: ["a", 0], id: 0.0 }];
const uniquePeer = peer("Unique");
for (const [label, value] of [
  ["distinct objects", fewObjects],
  ["objects, the last equal to the first", fewDup],
]) {
  const ours = time(() => verdict(pkg.validateUnique(value)));
  const theirs = time(() => uniquePeer(value));
  report(`${PEER_ITEMS} ${label}`, ours);
  report(`peer: ajv, ${PEER_ITEMS} ${label}`, theirs);
  console.log(`  ratio ajv / ctxgen ${(theirs[0] / ours[0]).toFixed(2)}`);
}
const CHARS = 10000;
console.log(`pattern ^(a+)+$ on ${CHARS} characters:`);
const noMatch = "a".repeat(CHARS) + "b";
report(
  "a's and a trailing b (no match)",
  time(() => verdict(pkg.validateBacktrack(noMatch))),
);
const match = "a".repeat(CHARS);
report(
  "a's only (match)",
  time(() => verdict(pkg.validateBacktrack(match))),
);
// The peer: RegExp (backtracking) on the same pattern, exponential in the length.
const regexp = new RegExp("^(a+)+$", "u");
for (const n of [20, 22, 24]) {
  const text = "a".repeat(n) + "b";
  report(
    `peer: RegExp (backtracking), ${n} characters`,
    time(() => (regexp.test(text) ? "match" : "no match")),
  );
}
