// The package generated from the hostile-names fixture (tests/fixtures/hostile/): property
// names, descriptions, enum values, patterns, defaults and file names that are reserved words or
// hold comment terminators, quotes, line breaks, NUL and code. Loading it must run none of that
// text, and values must round-trip with the schema's exact property names.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { validateOrder } from "../fixtures/objects/src/index.js";
import {
  parseHolder,
  parseHostile,
  parsePing,
  validateHolder,
  validateHostile,
} from "../fixtures/hostile/src/index.js";

const fixtures = process.env["CTXGEN_TS_FIXTURES"];

function instance(): unknown {
  assert.ok(fixtures, "CTXGEN_TS_FIXTURES is not set");
  const text = readFileSync(
    join(fixtures, "..", "hostile-instance.json"),
    "utf8",
  );
  return (JSON.parse(text) as { instance: unknown }).instance;
}

test("hostile property names round-trip unchanged", () => {
  const value = instance();
  assert.deepEqual(validateHostile(value), []);
  assert.deepStrictEqual(
    JSON.parse(JSON.stringify(parseHostile(value))),
    value,
  );
});

test("recursive aliases, empty type lists and cross-file cycles", () => {
  const holder = { nest: [[], [[]]], none: { type: "x" }, true: "yes" };
  assert.deepStrictEqual(parseHolder(holder), holder);
  assert.deepEqual(
    validateHolder({ nothing: 1 }).map((v) => [v.pointer, v.keyword]),
    [["/nothing", "type"]],
  );
  const ping = { pong: { ping: { n: 1 }, s: "x" } };
  assert.deepStrictEqual(parsePing(ping), ping);
});

test("violations under names holding `/` and `~` have escaped pointers", () => {
  // Names of the schema (their reference tokens are written by the generator)...
  const value = {
    ...(instance() as Record<string, unknown>),
    "//slashes": 1,
    "*/": 2,
  };
  assert.deepEqual(
    validateHostile(value)
      .map((v) => [v.pointer, v.keyword])
      .sort(),
    [
      ["/*~1", "type"],
      ["/~1~1slashes", "type"],
    ],
  );
  // ...and names read from the instance (escaped when a violation needs them).
  const order = { id: "o", lines: [], extras: { "a/b~c": "x", "~": 1 } };
  assert.deepEqual(
    validateOrder(order).map((v) => [v.pointer, v.keyword]),
    [["/extras/a~1b~0c", "type"]],
  );
});
