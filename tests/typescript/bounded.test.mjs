// Hostile instances against the package generated from tests/fixtures/bounded/: the cases of
// tests/fixtures/bounded-vectors.json (the same cases the Rust and Python harnesses run).
// Nesting far beyond MAX_DEPTH never throws a RangeError and reports exactly the listed
// (pointer, keyword) pairs, `isX` gives the same verdict, `uniqueItems` compares items by JSON
// value, and numbers compare as doubles (docs/validation.md).

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "..");
const fixtureSchemas = process.env["CTXGEN_TS_FIXTURES"];
const vectors = JSON.parse(
  readFileSync(join(fixtureSchemas, "..", "bounded-vectors.json"), "utf8"),
);
const pkg = await import(
  pathToFileURL(join(work, "out/fixtures/bounded/src/index.js")).href
);
const runtime = await import(
  pathToFileURL(join(work, "out/fixtures/bounded/src/runtime.js")).href
);

const fill = (template, inner) => {
  if (template === "$") return inner;
  if (Array.isArray(template)) return template.map((x) => fill(x, inner));
  if (typeof template === "object" && template !== null) {
    return Object.fromEntries(
      Object.entries(template).map(([k, x]) => [k, fill(x, inner)]),
    );
  }
  return template;
};

/** `leaf` wrapped `times` times in `wrap`, without recursion over the depth. */
const build = (spec) => {
  let value = spec.leaf;
  for (let i = 0; i < spec.times; i++) value = fill(spec.wrap, value);
  return value;
};

const instance = (c) => {
  if (c.deep !== undefined) return build(c.deep);
  if (c.deep_items !== undefined) return c.deep_items.map(build);
  return c.instance;
};

const key = (p) => `${p[0]}\u0000${p[1]}`;
const sorted = (pairs) =>
  pairs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

const expected = (c) =>
  sorted(
    (c.errors ?? []).map((e) => {
      const [tokens, times] = e.repeat ?? ["", 0];
      return [tokens.repeat(times) + e.pointer, e.keyword];
    }),
  );

const pairs = (violations) =>
  sorted(violations.map((v) => [v.pointer, v.keyword]));

for (const c of vectors.cases) {
  test(`${c.type}: ${c.description}`, () => {
    const value = instance(c);
    const got = pairs(pkg[`validate${c.type}`](value));
    assert.deepEqual(got, expected(c));
    assert.equal(got.length === 0, c.valid);
    assert.equal(pkg[`is${c.type}`](value), c.valid);
    if (c.valid) pkg[`parse${c.type}`](value);
    else assert.throws(() => pkg[`parse${c.type}`](value), pkg.ValidationError);
  });
}

// The messages: the same text as the Rust and Python bindings (docs/validation.md).
const triple = (p) => `${p[0]}\u0000${p[1]}\u0000${p[2]}`;
const triples = (list) =>
  list.sort((a, b) =>
    triple(a) < triple(b) ? -1 : triple(a) > triple(b) ? 1 : 0,
  );
const messageCases = vectors.cases.filter((c) =>
  (c.errors ?? []).some((e) => e.message !== undefined),
);

test("the message cases cover the keywords", () => {
  const keywords = new Set(
    messageCases.flatMap((c) => c.errors.map((e) => e.keyword)),
  );
  assert.ok(messageCases.length >= 10);
  for (const k of [
    "type",
    "enum",
    "pattern",
    "maximum",
    "required",
    "maxDepth",
  ]) {
    assert.ok(keywords.has(k), k);
  }
});

for (const c of messageCases) {
  test(`message of ${c.type}: ${c.description}`, () => {
    const got = triples(
      pkg[`validate${c.type}`](instance(c)).map((v) => [
        v.pointer,
        v.keyword,
        v.message,
      ]),
    );
    const want = triples(
      c.errors.map((e) => {
        const [tokens, times] = e.repeat ?? ["", 0];
        return [tokens.repeat(times) + e.pointer, e.keyword, e.message];
      }),
    );
    assert.deepEqual(got, want);
  });
}

test("MAX_DEPTH is the shared constant", () => {
  assert.equal(runtime.MAX_DEPTH, 1024);
});

test("the depth boundary", () => {
  for (const depth of [1023, 1024, 1025, 100000]) {
    const tree = build({
      leaf: { value: "x" },
      wrap: { value: "x", next: "$" },
      times: depth,
    });
    const got = pairs(pkg.validateTree(tree));
    if (depth <= runtime.MAX_DEPTH) assert.deepEqual(got, []);
    else assert.deepEqual(got, [["/next".repeat(1025), "maxDepth"]]);
  }
});

test("deeply nested JSON text parses and validates without a RangeError", () => {
  const text = "[".repeat(100000) + "]".repeat(100000);
  assert.deepEqual(pairs(pkg.validateJson(JSON.parse(text))), [["", "anyOf"]]);
  assert.equal(pkg.isJson(JSON.parse(text)), false);
});

test("numbers beyond the double range are infinite", () => {
  const huge = JSON.parse("1e400");
  assert.deepEqual(pairs(pkg.validateNumbers({ whole: huge })), [
    ["/whole", "type"],
  ]);
  assert.deepEqual(pairs(pkg.validateNumbers({ max: huge })), [
    ["/max", "maximum"],
  ]);
  assert.deepEqual(pairs(pkg.validateNumbers({ even: huge })), [
    ["/even", "multipleOf"],
  ]);
  assert.deepEqual(pairs(pkg.validateNumbers({ numMin: -huge })), [
    ["/numMin", "minimum"],
  ]);
  assert.deepEqual(pairs(pkg.validateUnique([huge, Infinity])), [
    ["", "uniqueItems"],
  ]);
});

test("uniqueItems over 100000 numbers", () => {
  const items = Array.from({ length: 100000 }, (_, i) => i);
  assert.deepEqual(pkg.validateUnique(items), []);
  items.push(99999.0);
  assert.deepEqual(pairs(pkg.validateUnique(items)), [["", "uniqueItems"]]);
});
