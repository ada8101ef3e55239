// Runs every helper vector of tests/vectors/helpers/*.json against the generated helpers:
// `expected` results compare by the rules of the helper README (numbers within 1e-9, arrays
// in order, objects by key set); `error` cases must throw a HelperError with that code.

import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import * as pkg from "../pkg/src/index.js";

interface HelperCase {
  helper: string;
  description: string;
  args: unknown[];
  expected?: unknown;
  error?: string;
}

const root = join(process.env["CTXGEN_VECTORS"] ?? "tests/vectors", "helpers");
const members = pkg as unknown as { [name: string]: unknown };

/** Equality by the comparison rules of the helper specification. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") {
    return Math.abs(a - b) <= 1e-9;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      return false;
    }
    return a.every((x, i) => same(x, b[i]));
  }
  if (typeof a === "object" && typeof b === "object" && a && b) {
    const x = a as { [key: string]: unknown };
    const y = b as { [key: string]: unknown };
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    return keys.every((k) => Object.hasOwn(y, k) && same(x[k], y[k]));
  }
  return a === b;
}

let total = 0;

for (const file of readdirSync(root).sort()) {
  if (!file.endsWith(".json")) continue;
  const { group, cases } = JSON.parse(
    readFileSync(join(root, file), "utf8"),
  ) as { group: string; cases: HelperCase[] };
  total += cases.length;
  describe(group, () => {
    for (const c of cases) {
      test(`${c.helper}: ${c.description}`, () => {
        const fn = members[c.helper];
        if (typeof fn !== "function") {
          throw new Error(`the package has no helper ${c.helper}`);
        }
        const call = () => (fn as (...args: unknown[]) => unknown)(...c.args);
        if (c.error !== undefined) {
          assert.throws(call, (e: unknown) => {
            assert.ok(e instanceof pkg.HelperError, `not a HelperError: ${e}`);
            assert.equal(e.code, c.error);
            return true;
          });
        } else {
          const got = call();
          assert.ok(
            same(got, c.expected),
            `got ${JSON.stringify(got)}, expected ${JSON.stringify(c.expected)}`,
          );
          if (c.helper.endsWith("FallbackAction")) {
            (got as { [key: string]: unknown })["mutated"] = true;
            assert.ok(same(call(), c.expected), "fallbacks must be fresh");
          }
        }
      });
    }
  });
}

test("helper vector count", () => {
  console.log(`helper vectors: ${total}`);
  assert.ok(total >= 385);
});

test("worked example (docs/helpers.md): derived contexts validate", () => {
  const thesis = pkg.parseThesisContext(
    JSON.parse(
      readFileSync(
        join(root, "..", "..", "..", "docs", "examples", "thesis-context.json"),
        "utf8",
      ),
    ),
  );
  const chapter = pkg.deriveChapterContext(
    thesis,
    "ch3",
    {
      parent_summary:
        "A thesis on hierarchical context for writing agents; this chapter describes the method.",
      chapter_objectives: ["Describe the protocol"],
      research_questions_addressed: [
        "RQ1: Does hierarchical context reduce inconsistency?",
      ],
      contributions_supported: ["C1: A context protocol"],
      chapter_citations: ["smith2020", "wang2023"],
      required_citations: ["smith2020"],
      section_assignments: [
        {
          section_id: "3.1",
          section_title: "Design",
          word_budget: 3000,
          dependencies: [],
          writer_type: "methods-writer",
          status: "complete",
        },
        {
          section_id: "3.2",
          section_title: "Setup",
          word_budget: 2500,
          dependencies: ["3.1"],
          writer_type: "methods-writer",
          status: "drafted",
        },
      ],
    },
    ["word budget"],
  );
  const section = pkg.deriveSectionContext(chapter, "3.2", {
    chapter_summary: "The method chapter: protocol design, then setup.",
    section_objectives: ["Explain the setup"],
    key_points: ["40 theses", "5 runs"],
    relevant_research_files: ["research/setup.md"],
    relevant_notes: [],
    available_citations: ["smith2020", "wang2023"],
    style_guide: { tense_for_section: "past" },
  });
  assert.deepEqual(pkg.validateChapterContext(chapter), []);
  assert.deepEqual(pkg.validateSectionContext(section), []);
  assert.equal(chapter.chapter_number, 3);
  assert.equal(chapter.remaining_budget, 3500);
  assert.equal(section.section_number, "3.2");
});
