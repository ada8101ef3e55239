// Benchmark: the generated TypeScript validators against ajv compiled from the same schemas,
// in the same process, on (1) large valid instances with thousands of items and (2) a stream
// of small valid instances (every valid schema vector). Prints throughput and the ratio.
//
// Usage: (cd tests/typescript && npm ci) && node tests/typescript/bench.mjs [--pkg DIR]
// DIR defaults to generated/typescript; it is compiled with tsc into a temporary folder. Then
// the hostile workloads of bench-bounded.mjs (nesting 100 000 deep, uniqueItems).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const argPkg = process.argv.indexOf("--pkg");
const pkgDir = resolve(
  argPkg > 0 ? process.argv[argPkg + 1] : join(root, "generated/typescript"),
);

// Compile the generated package.
const out = mkdtempSync(join(tmpdir(), "ctxgen-bench-"));
process.on("exit", () => rmSync(out, { recursive: true, force: true }));
execFileSync(
  join(here, "node_modules/.bin/tsc"),
  [
    "-p",
    join(pkgDir, "tsconfig.json"),
    "--outDir",
    out,
    "--declaration",
    "false",
    "--sourceMap",
    "false",
  ],
  { stdio: "inherit" },
);
const pkg = await import(pathToFileURL(join(out, "index.js")).href);

// ajv from the same schemas, with the validating extension keyword.
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addKeyword({
  keyword: "x-max-words",
  type: "string",
  schemaType: "number",
  validate: (max, s) => (s.match(/[^ \t\n\v\f\r]+/g) ?? []).length <= max,
});
const schemaDir = join(root, "schemas");
for (const f of readdirSync(schemaDir).filter((f) => f.endsWith(".json"))) {
  ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, f), "utf8")));
}
const ajvFor = (schema, pointer) =>
  ajv.getSchema(`https://ctxgen.dev/schemas/${schema}#${pointer}`);
// The same with every error collected, to compare with the `validate` functions.
const ajvAll = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajvAll);
ajvAll.addKeyword({
  keyword: "x-max-words",
  type: "string",
  schemaType: "number",
  validate: (max, s) => (s.match(/[^ \t\n\v\f\r]+/g) ?? []).length <= max,
});
for (const f of readdirSync(schemaDir).filter((f) => f.endsWith(".json"))) {
  ajvAll.addSchema(JSON.parse(readFileSync(join(schemaDir, f), "utf8")));
}

// Vectors, and a name per schema location (the generated name may differ from the vector's).
const vectorsDir = join(root, "tests/vectors");
const vectorFiles = [];
for (const p of readdirSync(vectorsDir)) {
  if (p === "helpers" || p.endsWith(".md")) continue;
  for (const f of readdirSync(join(vectorsDir, p))) {
    vectorFiles.push(JSON.parse(readFileSync(join(vectorsDir, p, f), "utf8")));
  }
}
function ours(type) {
  const is = pkg[`is${type}`] ?? pkg[`is${type}Type`];
  if (typeof is !== "function") throw new Error(`no is${type}`);
  return is;
}
const firstValid = (type, description) =>
  vectorFiles
    .filter((v) => v.type === type)
    .flatMap((v) => v.cases)
    .find((c) => c.valid && (!description || c.description === description))
    .instance;

// Large instances.
const op = structuredClone(
  firstValid(
    "SchedulingOperation",
    "scheduling operation with analysed and new attendees",
  ),
);
const people = op.attendees;
op.attendees = Array.from({ length: 5000 }, (_, i) => ({
  ...structuredClone(people[i % people.length]),
  attendee_email: `person${i}@example.com`,
}));
const thesis = structuredClone(
  firstValid(
    "ThesisContext",
    "complete thesis context with every optional field",
  ),
);
const n = 2000;
thesis.chapter_structure = Array.from({ length: n }, (_, i) => ({
  ...thesis.chapter_structure[i % 2],
  chapter_id: `ch${i}`,
}));
thesis.terminology_glossary = Array.from({ length: n }, (_, i) => ({
  ...thesis.terminology_glossary[i % 2],
  term: `term ${i}`,
}));
thesis.chapter_summaries = Array.from({ length: n }, (_, i) => ({
  ...thesis.chapter_summaries[0],
  chapter_id: `ch${i}`,
}));
thesis.bibliography_keys = Array.from({ length: n }, (_, i) => `key${i}`);

const large = [
  [
    "SchedulingOperation (5000 attendees)",
    op,
    ours("SchedulingOperation"),
    ajvFor("scheduling-context.json", "/$defs/SchedulingOperation"),
  ],
  [
    "ThesisContext (2000 chapters, terms, summaries)",
    thesis,
    ours("ThesisContext"),
    ajvFor("paper-context.json", "/$defs/ThesisContext"),
  ],
];

// The stream: every valid vector instance with its type's validators.
const stream = [];
for (const v of vectorFiles) {
  const mine = ours(v.type);
  const theirs = ajvFor(v.schema, v.pointer);
  for (const c of v.cases) if (c.valid) stream.push([c.instance, mine, theirs]);
}

/** Runs `f` repeatedly for about `ms` milliseconds; returns calls per second. */
function measure(f, ms = 1500) {
  for (let i = 0; i < 20; i++) f();
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < ms) {
    f();
    calls++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return (calls * 1000) / elapsed;
}

const fmt = (x) => x.toFixed(x >= 100 ? 0 : 1).padStart(10);
const ratios = [];
console.log(
  `node ${process.version}; ratio = ctxgen speed / ajv speed (>= 1 is as fast or faster)\n`,
);
for (const [label, instance, mine, theirs] of large) {
  if (!mine(instance) || !theirs(instance)) {
    throw new Error(
      `${label}: not valid (ctxgen ${mine(instance)}, ajv ${theirs(instance)})`,
    );
  }
  const a = measure(() => mine(instance));
  const b = measure(() => theirs(instance));
  ratios.push(a / b);
  console.log(
    `${label}\n  ctxgen ${fmt(a)} validations/s   ajv ${fmt(b)} validations/s   ratio ${(a / b).toFixed(2)}`,
  );
}
for (const [instance, mine, theirs] of stream) {
  if (!mine(instance) || !theirs(instance))
    throw new Error("stream: a valid vector fails");
}
const a =
  measure(() => {
    for (const [instance, mine] of stream) mine(instance);
  }) * stream.length;
const b =
  measure(() => {
    for (const [instance, , theirs] of stream) theirs(instance);
  }) * stream.length;
ratios.push(a / b);
console.log(
  `stream of ${stream.length} small valid instances\n  ctxgen ${fmt(a)} validations/s   ajv ${fmt(b)} validations/s   ratio ${(a / b).toFixed(2)}`,
);
const geo = Math.exp(
  ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length,
);
console.log(
  `\ngeometric mean ratio (is* vs ajv, valid instances): ${geo.toFixed(2)}`,
);

// Full mode: every violation of invalid instances (validate* vs ajv with allErrors).
const invalid = [];
for (const v of vectorFiles) {
  const validate = pkg[`validate${v.type}`] ?? pkg[`validate${v.type}Type`];
  const theirs = ajvAll.getSchema(
    `https://ctxgen.dev/schemas/${v.schema}#${v.pointer}`,
  );
  for (const c of v.cases)
    if (!c.valid) invalid.push([c.instance, validate, theirs]);
}
const fa =
  measure(() => {
    for (const [instance, validate] of invalid) validate(instance);
  }) * invalid.length;
const fb =
  measure(() => {
    for (const [instance, , theirs] of invalid) theirs(instance);
  }) * invalid.length;
console.log(
  `all errors of ${invalid.length} invalid instances (validate* vs ajv allErrors)\n  ctxgen ${fmt(fa)} validations/s   ajv ${fmt(fb)} validations/s   ratio ${(fa / fb).toFixed(2)}`,
);

// Hostile instances (nesting, uniqueItems): the same workloads as benches/bounded.rs.
await import("./bench-bounded.mjs");
