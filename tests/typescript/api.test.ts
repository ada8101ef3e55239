// The API of the generated package beyond the vectors: parse keeps the value as sent and
// withDefaults applies schema defaults, the
// ValidationError shape, type narrowing by the `is` guards, and the enum value lists.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  AttendeeActionTypeValues,
  isMessageEnvelope,
  parseMessageEnvelope,
  parseThesisContext,
  validateMessageEnvelope,
  ValidationError,
  withDefaultsThesisContext,
} from "../pkg/src/index.js";
import type { MessageEnvelope, ThesisContext } from "../pkg/src/index.js";

// A complete thesis context from the vectors, without the two fields that have defaults.
const vectors = JSON.parse(
  readFileSync(
    join(
      process.env["CTXGEN_VECTORS"] ?? "tests/vectors",
      "paper-context/thesis-context.json",
    ),
    "utf8",
  ),
) as { cases: { description: string; instance: { [key: string]: unknown } }[] };
const complete = vectors.cases.find(
  (c) => c.description === "complete thesis context with every optional field",
);
assert.ok(complete !== undefined);
const thesis: { [key: string]: unknown } = { ...complete.instance };
delete thesis["venue"];
delete thesis["bibliography_keys"];

test("parse keeps the value as sent; withDefaults applies schema defaults", () => {
  const parsed: ThesisContext = parseThesisContext(thesis);
  assert.equal("bibliography_keys" in parsed, false);
  assert.deepEqual(JSON.parse(JSON.stringify(parsed)), thesis);
  const filled = withDefaultsThesisContext(parsed);
  assert.deepEqual(filled.bibliography_keys, []);
  assert.equal(filled.venue, null);
  assert.equal("venue" in parsed, false, "the parsed value is not modified");
});

test("withDefaults keeps present values instead of defaults", () => {
  const filled = withDefaultsThesisContext(
    parseThesisContext({ ...thesis, venue: "ETH" }),
  );
  assert.equal(filled.venue, "ETH");
});

test("parse throws a ValidationError carrying every violation", () => {
  const bad = { kind: 5, context: "/x" };
  assert.throws(
    () => parseMessageEnvelope(bad),
    (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.ok(e instanceof Error);
      const pairs = e.violations.map((v) => `${v.pointer} ${v.keyword}`);
      assert.deepEqual(pairs.sort(), [
        " required",
        "/context pattern",
        "/kind type",
      ]);
      assert.ok(e.violations.every((v) => v.message.length > 0));
      assert.equal(validateMessageEnvelope(bad).length, 3);
      return true;
    },
  );
});

test("is narrows unknown values", () => {
  const value: unknown = JSON.parse('{"kind": "k", "payload": {}}');
  if (isMessageEnvelope(value)) {
    const envelope: MessageEnvelope = value;
    assert.equal(envelope.kind, "k");
  } else {
    assert.fail("a valid envelope");
  }
});

test("pointers escape ~ and /", () => {
  const got = validateMessageEnvelope({ kind: "k", payload: {}, "a/b~c": 1 });
  assert.deepEqual(got, []);
});

test("enums list their values", () => {
  assert.ok(AttendeeActionTypeValues.includes("Reply"));
  assert.equal(
    new Set(AttendeeActionTypeValues).size,
    AttendeeActionTypeValues.length,
  );
});
