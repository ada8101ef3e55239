// The types of the fixture packages hold the values their validators accept: index signatures
// widened by the declared properties' types, and defaults applied only where the property's
// type holds them.

import { strict as assert } from "node:assert";
import { test } from "node:test";

import {
  parseDefaults,
  withDefaultsDefaults,
} from "../fixtures/defaults/src/index.js";
import {
  isIndexed,
  isPatterned,
  isTyped,
} from "../fixtures/indexed/src/index.js";
import type {
  Indexed,
  Patterned,
  Typed,
} from "../fixtures/indexed/src/index.js";

test("further properties sit beside declared interface properties", () => {
  const indexed: Indexed = {
    options: { flatten: true },
    commands: { build: { flatten: false } },
    maybe: null,
    open: { label: "x", more: [1, { a: null }] },
    count: 3,
    anything: { nested: ["json", 2, true, null] },
  };
  assert.ok(isIndexed(indexed));
  const typed: Typed = { size: 2, options: {}, color: "red" };
  assert.ok(isTyped(typed));
  const patterned: Patterned = { schema_version: "latest", prompts: [{}] };
  assert.ok(isPatterned(patterned));
});

test("defaults are applied only where the property's type holds them", () => {
  const { cors } = withDefaultsDefaults(parseDefaults({ cors: {} }));
  assert.ok(cors !== undefined);
  // `max_age: null` is no string: the default of `policies` is not applied.
  assert.equal(cors.policies, undefined);
  assert.deepEqual(cors.fallback, [
    { allow_headers: ["content-type", "authorization"], max_age: "1h" },
    {
      allow_headers: [],
      origins: ["https://studio.apollographql.com", "https://example.com"],
    },
  ]);
  assert.deepEqual(cors.pairs, [
    { a: 1, b: 2 },
    { a: 3, b: 4 },
  ]);
  assert.equal(cors.numbers?.length, 21);
});
