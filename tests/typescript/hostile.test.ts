// The package generated from the hostile-names fixture (tests/fixtures/hostile/): property
// names, descriptions, enum values, patterns, defaults and file names that are reserved words or
// hold comment terminators, quotes, line breaks, NUL and code. Loading it must run none of that
// text, and values must round-trip with the schema's exact property names.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

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
