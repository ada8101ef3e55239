// The round-trip contract (docs/types.md) through the package generated from
// tests/fixtures/fidelity/: every instance of tests/fixtures/fidelity-instances.json (the ones
// the Rust and Python harnesses run) validates, and parse then JSON.stringify gives back the
// same JSON value.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "..");
const fixtureSchemas = process.env["CTXGEN_TS_FIXTURES"];
const instances = JSON.parse(
  readFileSync(join(fixtureSchemas, "..", "fidelity-instances.json"), "utf8"),
);
const pkg = await import(
  pathToFileURL(join(work, "out/fixtures/fidelity/src/index.js")).href
);

test("every fidelity instance validates, parses and serializes back", () => {
  assert.ok(instances.length >= 16);
  for (const instance of instances) {
    assert.deepEqual(pkg.validateFidelity(instance), []);
    const back = JSON.parse(JSON.stringify(pkg.parseFidelity(instance)));
    assert.deepEqual(back, instance);
  }
});

test("defaults are applied on request only", () => {
  const parsed = pkg.parseFidelity({});
  assert.equal("level" in parsed, false);
  assert.equal(pkg.withDefaultsFidelity(parsed).level, 3);
});
