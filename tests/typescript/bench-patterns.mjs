// `pattern` matching speed in TypeScript: `RE2JS` on ctxgen's RE2 translation (what the
// generated code uses for a pattern backtracking cannot run in linear time) next to
// `RegExp(source, "u")` (what it used for every pattern before, and still uses for the others).
// Usage: node tests/typescript/bench-patterns.mjs   (after tests/typescript/run.sh)
import { RE2JS } from "re2js";

/** Median milliseconds of one call, over `runs` batches of `batch` calls. */
function time(runs, batch, f) {
  const times = [];
  let sink = 0;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) sink += f() ? 1 : 0;
    times.push(Number(process.hrtime.bigint() - start) / 1e6 / batch);
  }
  if (sink < 0) console.log(sink);
  times.sort((x, y) => x - y);
  return times[times.length >> 1];
}

const a = "a".repeat(10000);
// Pattern, its translation as ctxgen writes it, hostile input.
const hostile = [
  ["^(a+)+$", "^(?:a+)+$", a + "!"],
  ["(a|a)*$", "(?:a|a)*$", a + "!"],
  ["(a|aa)+$", "(?:a|aa)+$", a + "!"],
  [
    "(\\w+\\s?)*$",
    "(?:[0-9A-Z\\x{5F}a-z]+[\\x{9}-\\x{D}\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}-\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]?)*$",
    a + "!",
  ],
  ["^(a*)*b$", "^(?:a*)*b$", a],
  ["(x+x+)+y", "(?:x+x+)+y", "x".repeat(10000)],
  ["a*a*a*a*b", "a*a*a*a*b", a],
];
console.log(
  "hostile input, 10,000 characters (RE2JS, the generated code's engine):",
);
for (const [p, t, s] of hostile) {
  const re = RE2JS.compile(t);
  console.log(
    `  ${p.padEnd(14)} ${time(3, 1, () => re.test(s)).toFixed(3)} ms`,
  );
}
const before = new RegExp("^(a+)+$", "u");
const short = "a".repeat(24) + "!";
console.log(
  `  ^(a+)+$ with RegExp on 24 characters (before): ${time(1, 1, () => before.test(short)).toFixed(1)} ms`,
);

// Ordinary patterns keep RegExp; RE2JS on the same pattern shows what using it everywhere
// would cost.
const ordinary = [
  ["^[a-z]+$", "^[a-z]+$", "hello"],
  [
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^[0-9]{4}\\x{2D}[0-9]{2}\\x{2D}[0-9]{2}$",
    "2024-01-02",
  ],
  [
    "^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}$",
    "^[\\x{2D}0-9A-Z\\x{5F}a-z]+(?:\\x{2F}[\\x{2D}0-9A-Z\\x{5F}a-z]+){0,4}$",
    "abc/def_g/hij",
  ],
  ["\\.json$", "\\x{2E}json$", "schema.json"],
];
console.log("ordinary input, per call (RegExp, kept for these, vs RE2JS):");
for (const [p, t, s] of ordinary) {
  const native = new RegExp(p, "u");
  const re = RE2JS.compile(t);
  const n = time(9, 20000, () => native.test(s)) * 1e6;
  const l = time(9, 20000, () => re.test(s)) * 1e6;
  console.log(
    `  ${p.padEnd(40)} RegExp ${n.toFixed(0).padStart(6)} ns   RE2JS ${l.toFixed(0).padStart(6)} ns`,
  );
}
