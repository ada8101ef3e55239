// The tagged variants ctxgen builds from an `if`/`then` table (fixture `tables`): `Payment` is
// a union tagged by `method` whose `card` variant is a union tagged by `network`. The same
// instances and the same (pointer, keyword) pairs as tests/python/test_tables.py, each verdict
// checked against ajv; the variant validators fix their tag values.

import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = await import(
  pathToFileURL(join(here, "..", "out/fixtures/tables/src/index.js")).href
);
const schema = JSON.parse(
  readFileSync(
    join(process.env["CTXGEN_TS_FIXTURES"], "tables/tables.json"),
    "utf8",
  ),
);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema);
const oracle = ajv.getSchema(`${schema.$id}#/$defs/Payment`);

const visa = {
  method: "card",
  network: "visa",
  details: { last4: "1234" },
  amount: 5,
};
const amex = {
  method: "card",
  network: "amex",
  details: { cid: "0042" },
  amount: 7.5,
};
const cash = { method: "cash", network: null, details: {}, amount: 1 };
const bank = { method: "bank transfer", network: null, details: {}, amount: 0 };

const pairs = (violations) =>
  violations.map((v) => `${v.pointer} ${v.keyword}`).sort();

test("valid payments parse, round-trip and narrow on their tags", () => {
  for (const data of [visa, amex, cash, bank]) {
    assert.deepEqual(pkg.validatePayment(data), []);
    assert.equal(oracle(data), true);
    const value = pkg.parsePayment(data);
    assert.deepEqual(JSON.parse(JSON.stringify(value)), data);
  }
  assert.equal(pkg.isPaymentCardVisa(visa), true);
  assert.equal(pkg.isPaymentCardAmex(visa), false);
  assert.equal(pkg.isPaymentCard(amex), true);
  assert.equal(pkg.isPaymentCash(cash), true);
});

test("invalid payments report the same pointers and keywords as Python", () => {
  const cases = [
    [
      { ...visa, details: { cid: "0042" } },
      ["/details additionalProperties", "/details required"],
    ],
    [{ ...visa, network: "diners" }, ["/network enum"]],
    [{ ...visa, network: null }, ["/network enum"]],
    [{ ...cash, network: "visa" }, ["/network const"]],
    [
      { ...cash, details: { last4: "1234" } },
      ["/details additionalProperties"],
    ],
    [{ ...visa, method: "cheque" }, ["/method enum"]],
    [{ ...visa, amount: -1 }, ["/amount minimum"]],
  ];
  for (const [data, expected] of cases) {
    assert.deepEqual(pairs(pkg.validatePayment(data)), expected.sort());
    assert.equal(oracle(data), false);
    assert.throws(() => pkg.parsePayment(data), pkg.ValidationError);
  }
});

test("variant validators fix their tag values", () => {
  assert.deepEqual(pairs(pkg.validatePaymentCardVisa(amex)), [
    "/network const",
  ]);
  assert.deepEqual(pairs(pkg.validatePaymentCard(cash)), ["/method const"]);
});
