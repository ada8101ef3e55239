// Differential test: the validators generated for the feature fixtures agree with ajv
// (compiled from the same fixture schemas) on the validity of hand-written instances, and
// `isX`, `validateX` and `parseX` agree with each other.

import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "..");
const fixtureSchemas = process.env["CTXGEN_TS_FIXTURES"];

/** instances per fixture: [schema file, pointer, type name, instances] */
const cases = {
  constraints: [
    [
      "constraints.json",
      "",
      "Everything",
      [
        {},
        { s: "ab@example.com" },
        { s: "a@b.co x y z" },
        { s: "Ab@example.com" },
        { s: "a" },
        { n: 50.5 },
        { n: 50.25 },
        { n: -0.5 },
        { n: 100.5 },
        { a: [7] },
        { a: [7, 7] },
        { a: [1, 2] },
        { a: [7, 7, 7] },
        { a: [] },
        { t: ["x", 1] },
        { t: ["x", 1, 2] },
        { t: [1, "x"] },
        { o: { x_1: 1 } },
        { o: { x_1: "1" } },
        { o: { a: "1" } },
        { o: { a: "1", b: "2" } },
        { o: { c: "1" } },
        { o: { c: "1", d: "2" } },
        { o: { Bad: "1" } },
        { o: {} },
        { o: { a: "1", b: "2", c: "3", d: "4", e: "5" } },
        { c: { k: [1, 2] } },
        { c: { k: [1.0, 2] } },
        { c: { k: [2, 1] } },
        {
          f: [
            "2024-02-29",
            "23:59:60Z",
            "P1D",
            "example.com",
            "10.0.0.1",
            "::1",
          ],
        },
        {
          f: [
            "https://x.test/a",
            "a/b",
            "123e4567-e89b-12d3-a456-426614174000",
          ],
        },
        { f: ["/a~0b", "^a+$", "2024-01-01T00:00:00Z"] },
        { f: ["2023-02-29"] },
        { f: ["not a date"] },
        { x: "a" },
        { x: "" },
        { x: 3 },
        { x: null },
        { x: true },
        { one: "a" },
        { one: 1 },
        { one: 1.5 },
        { nothing: 1 },
        { extra: 1 },
        [],
        null,
      ],
    ],
  ],
  unions: [
    [
      "unions.json",
      "/$defs/Drawing",
      "Drawing",
      [
        { shapes: [] },
        {
          shapes: [
            { kind: "circle", radius: 1 },
            { kind: "square", side: 0 },
          ],
        },
        { shapes: [{ kind: "circle", radius: 0 }] },
        { shapes: [{ kind: "triangle" }] },
        { shapes: [], owner: 3 },
        { shapes: [], owner: "x" },
        { shapes: [], owner: "" },
        { shapes: [], owner: 0 },
        { shapes: [], owner: null },
        { shapes: [], knob: true, sizes: [1, 2] },
        { shapes: [], knob: "low", sizes: 2.5 },
        { shapes: [], knob: 3, sizes: 0 },
        { shapes: [], knob: null },
        { shapes: [], knob: 1.5, sizes: [1, "x"] },
        { shapes: [], knob: [], sizes: -1 },
        { shapes: [], sizes: { a: 1 } },
      ],
    ],
  ],
  recursion: [
    [
      "recursion.json",
      "",
      "TreeNode",
      [
        { label: "a" },
        { label: "a", children: [{ label: "b", children: [{ label: "c" }] }] },
        { label: "a", children: [{ label: "b", children: [{}] }] },
        { label: "a", next: { label: "b", next: null } },
        { label: "a", next: { label: 1 } },
      ],
    ],
  ],
  objects: [
    [
      "objects.json",
      "",
      "Order",
      [
        { id: "o", lines: [] },
        { id: "o", lines: [{ sku: "x" }], shipping: { address: "a" } },
        { id: "o", lines: [], shipping: { address: "a", other: 1 } },
        { id: "o", lines: [], extras: { a: 1, b: 2.5 } },
        { id: "o" },
        { id: "o", lines: [], quantity: 1.0, note: null },
      ],
    ],
  ],
  indexed: [
    [
      "indexed.json",
      "",
      "Indexed",
      [
        {},
        { options: { flatten: true } },
        { options: { flatten: 1 } },
        { commands: { a: { flatten: false } } },
        { commands: { a: { flatten: "x" } } },
        { maybe: null },
        { maybe: 3 },
        { open: { label: "x", more: [1] } },
        { open: { label: 1 } },
        { count: 1 },
        { count: 1.5 },
        { anything: [{ a: null }] },
        [],
        null,
      ],
    ],
    [
      "indexed.json",
      "/$defs/Typed",
      "Typed",
      [
        { size: 1, color: "red" },
        { color: 3 },
        { options: {} },
        { options: [] },
        { size: "1" },
      ],
    ],
    [
      "indexed.json",
      "/$defs/Patterned",
      "Patterned",
      [
        { schema_version: "latest" },
        { schema_version: "oldest" },
        { schema_version: {} },
        { prompts: [{}], "x-note": 1 },
        { prompts: [1] },
      ],
    ],
  ],
  wide: [
    [
      "wide.json",
      "",
      "Wide",
      [
        {},
        { scalar: 1 },
        { scalar: [] },
        { scalar: {} },
        { scalar: null },
        {
          kind: "microsoft.intune.accountprotectionlocaladministratorpasswordsolutionpolicy",
        },
        { kind: "microsoft" },
        { code: 226 },
        { code: 227 },
        { code: "200" },
        { bounded: 1e308 },
        { bounded: -1e308 },
        { pairs: { b: 2, a: 1 } },
        { pairs: { a: 1 } },
        { status: "Startup" },
        { status: "startup" },
        { identity: null },
        { identity: { file: 1 } },
        {
          disable_test_id_escaping_and_forfeit_all_rights_to_community_support:
            "no",
        },
      ],
    ],
  ],
  defaults: [
    [
      "defaults.json",
      "",
      "Defaults",
      [
        {},
        { cors: {} },
        { cors: { policies: null } },
        { cors: { policies: [{ max_age: null }] } },
        { cors: { policies: [{ max_age: "1h", origins: ["x"] }] } },
        { cors: { fallback: [{ extra: 1 }] } },
        { cors: { pairs: [{ a: 1.5 }] } },
        { cors: { greeting: 1 } },
      ],
    ],
  ],
};

for (const [fixture, list] of Object.entries(cases)) {
  test(`fixture ${fixture} agrees with ajv`, async () => {
    const pkg = await import(
      pathToFileURL(join(work, "out/fixtures", fixture, "src/index.js")).href
    );
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addKeyword({
      keyword: "x-max-words",
      type: "string",
      schemaType: "number",
      validate: (max, s) => (s.match(/[^ \t\n\v\f\r]+/g) ?? []).length <= max,
    });
    const dir = join(fixtureSchemas, fixture);
    const ids = {};
    for (const f of readdirSync(dir)) {
      const schema = JSON.parse(readFileSync(join(dir, f), "utf8"));
      ajv.addSchema(schema);
      ids[f] = schema.$id;
    }
    for (const [file, pointer, type, instances] of list) {
      const theirs = ajv.getSchema(`${ids[file]}#${pointer}`);
      for (const instance of instances) {
        const expected = theirs(instance);
        const violations = pkg[`validate${type}`](instance);
        const shown = JSON.stringify(instance);
        assert.equal(violations.length === 0, expected, `${type} ${shown}`);
        assert.equal(
          pkg[`is${type}`](instance),
          expected,
          `is${type} ${shown}`,
        );
        if (expected) {
          pkg[`parse${type}`](instance);
        } else {
          assert.throws(
            () => pkg[`parse${type}`](instance),
            pkg.ValidationError,
          );
        }
      }
    }
  });
}
