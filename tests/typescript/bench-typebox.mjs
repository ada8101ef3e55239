// JSON Schema -> TypeBox for the TypeScript harness of ctxgen-bench (bench-suite.mjs): a
// schema using a keyword TypeBox cannot express with the same meaning is refused with the
// reason (`Unsupported`), and the peer is skipped.

import { fullFormats } from "ajv-formats/dist/formats.js";
import { FormatRegistry, Kind, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/** The first line of an error's message (at most 300 characters). */
export const errorText = (e) =>
  (e instanceof Error ? e.message : String(e)).split("\n")[0].slice(0, 300);

export class Unsupported extends Error {}

// The string formats of ajv-formats ("full" mode), registered with the same checks.
const stringFormats = new Set();
for (const [name, f] of Object.entries(fullFormats)) {
  let check;
  if (f === true) check = () => true;
  else if (f instanceof RegExp) check = (s) => f.test(s);
  else if (typeof f === "function") check = f;
  else if (f && (f.type ?? "string") === "string") {
    const v = f.validate;
    check = v instanceof RegExp ? (s) => v.test(s) : v;
  }
  if (check) {
    FormatRegistry.Set(name, check);
    stringFormats.add(name);
  }
}

// Keywords by vocabulary; anything not listed is an annotation (ignored by ajv's
// `strict: false` as well).
const NOT_EXPRESSIBLE = {
  if: "if/then/else has no TypeBox type",
  oneOf: "oneOf (exactly one) has no TypeBox type",
  dependencies: "dependencies has no TypeBox type",
  "x-max-words": "x-max-words (a word-count keyword) has no TypeBox type",
  nullable: "nullable (an ajv extension) is not converted",
  discriminator: "discriminator (an ajv extension) is not converted",
};
const NOT_EXPRESSIBLE_2019 = {
  dependentRequired: "dependentRequired has no TypeBox type",
  dependentSchemas: "dependentSchemas has no TypeBox type",
  unevaluatedProperties:
    "unevaluatedProperties has no TypeBox type with the JSON Schema meaning",
  unevaluatedItems: "unevaluatedItems has no TypeBox type",
  $recursiveRef: "$recursiveRef is not converted",
  $dynamicRef: "$dynamicRef is not converted",
};
const ANNOTATION_ONLY = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const draftRank = { 4: 4, 6: 6, 7: 7, "2019-09": 2019, "2020-12": 2020 };

/**
 * JSON Schema -> TypeBox. Every `$ref` target becomes a reference schema with an `$id`
 * (`Type.Ref`), which also covers recursion; everything else is converted in place.
 */
export class TypeBoxConverter {
  constructor(set) {
    this.set = set;
    this.defs = new Map(); // location -> {name, schema}
    this.queue = [];
  }

  /** {check, errors} for a target, or throws Unsupported. */
  compile(target) {
    const file = this.set.byName.get(target.file);
    if (!file) throw new Unsupported(`no file ${target.file}`);
    const root = this.refTo(file, target.pointer);
    while (this.queue.length) {
      const { name, file: f, pointer } = this.queue.shift();
      const node = this.resolvePointer(f, pointer);
      this.defs.get(`${f.base}#${pointer}`).schema = {
        ...this.convert(node, f, pointer),
        $id: name,
      };
    }
    const references = [...this.defs.values()].map((d) => d.schema);
    return TypeCompiler.Compile(root, references);
  }

  refTo(file, pointer) {
    const loc = `${file.base}#${pointer}`;
    let d = this.defs.get(loc);
    if (!d) {
      d = { name: `D${this.defs.size}`, schema: undefined };
      this.defs.set(loc, d);
      this.queue.push({ name: d.name, file, pointer });
    }
    return Type.Ref(d.name);
  }

  resolvePointer(file, pointer) {
    let node = file.schema;
    if (pointer === "") return node;
    if (!pointer.startsWith("/"))
      throw new Unsupported(`reference to an anchor (#${pointer})`);
    for (const raw of pointer.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !(token in node))
        throw new Unsupported(`unresolvable pointer ${file.base}#${pointer}`);
      node = node[token];
    }
    return node;
  }

  ref(ref, file) {
    let url;
    try {
      url = new URL(ref, file.base);
    } catch {
      throw new Unsupported(`invalid $ref ${ref}`);
    }
    const fragment = decodeURIComponent(url.hash.slice(1));
    url.hash = "";
    const target = this.set.byBase.get(url.href);
    if (!target) throw new Unsupported(`$ref ${ref} outside the set`);
    return this.refTo(target, fragment);
  }

  /**
   * True when at most one of the oneOf branches can hold for any value, because each branch
   * states its JSON types (directly or as the whole of a $ref target) and no two share one;
   * oneOf is then exactly anyOf (a TypeBox union).
   */
  disjoint(branches, file) {
    if (!Array.isArray(branches)) return false;
    if (branches.length === 1) return true;
    const seen = new Set();
    for (let b of branches) {
      let f = file;
      for (let hops = 0; b && typeof b.$ref === "string" && hops < 20; hops++) {
        const only = Object.keys(b).every(
          (k) => k === "$ref" || ANNOTATION_ONLY.has(k),
        );
        if (!only && draftRank[f.draft] > 7) return false;
        let url;
        try {
          url = new URL(b.$ref, f.base);
        } catch {
          return false;
        }
        const frag = decodeURIComponent(url.hash.slice(1));
        url.hash = "";
        f = this.set.byBase.get(url.href);
        if (!f) return false;
        try {
          b = this.resolvePointer(f, frag);
        } catch {
          return false;
        }
      }
      if (!b || typeof b !== "object" || b.type === undefined) return false;
      const types = [].concat(b.type);
      if (types.includes("number") || types.includes("integer"))
        types.push("number", "integer");
      for (const t of new Set(types)) {
        if (seen.has(t)) return false;
        seen.add(t);
      }
    }
    return true;
  }

  convert(node, file, pointer) {
    const at = () => ` (at ${file.name}#${pointer})`;
    if (node === true) return Type.Unknown();
    if (node === false) return Type.Never();
    if (node === null || typeof node !== "object" || Array.isArray(node))
      throw new Unsupported(`not a schema${at()}`);
    const rank = draftRank[file.draft];
    if (rank === undefined)
      throw new Unsupported(`draft ${file.draft} is not converted`);
    const fail = (msg) => {
      throw new Unsupported(msg + at());
    };
    // Drafts 4, 6 and 7: `$ref` overrides its siblings (as ctxgen reads them).
    if (rank <= 7 && typeof node.$ref === "string")
      return this.ref(node.$ref, file);
    for (const [k, why] of Object.entries(NOT_EXPRESSIBLE)) {
      if (k === "if" && rank < 7) continue;
      if (k === "oneOf" && "oneOf" in node && this.disjoint(node.oneOf, file))
        continue;
      if (k in node) fail(why);
    }
    if (rank >= 2019) {
      for (const [k, why] of Object.entries(NOT_EXPRESSIBLE_2019))
        if (k in node) fail(why);
    }
    if ("propertyNames" in node && rank >= 6)
      fail("propertyNames has no TypeBox type");
    if ((rank >= 6 ? "$id" : "id") in node && node !== file.schema)
      fail("an embedded $id (a new base URI) is not converted");
    const sub = (s, suffix) => this.convert(s, file, `${pointer}/${suffix}`);

    const parts = [];
    // Type-specific keywords, one branch per JSON type.
    const branches = this.typeBranches(node, file, sub, fail);
    let listed = node.type === undefined ? null : [].concat(node.type);
    if (listed?.includes("number"))
      listed = listed.filter((t) => t !== "integer");
    const constrained = branches.some((b) => b.constrained);
    const enumValues =
      "const" in node && rank >= 6
        ? [node.const]
        : "enum" in node
          ? node.enum
          : null;
    if (enumValues) {
      if (!Array.isArray(enumValues)) fail("enum is not an array");
      if (enumValues.length === 0) return Type.Never();
      const lits = enumValues.map((v) => {
        if (v === null) return Type.Null();
        if (["string", "number", "boolean"].includes(typeof v))
          return Type.Literal(v);
        return fail("enum/const with an object or array value");
      });
      // The type check is redundant when every value already has a listed type.
      const typeOk = (v) =>
        listed.includes(jsonType(v)) ||
        (jsonType(v) === "integer" && listed.includes("number"));
      const redundant =
        !constrained && (listed === null || enumValues.every(typeOk));
      if (!redundant) parts.push(typePart(branches, listed));
      parts.push(lits.length === 1 ? lits[0] : Type.Union(lits));
    } else if (listed !== null || constrained) {
      parts.push(typePart(branches, listed));
    }
    if (node.$ref !== undefined) parts.push(this.ref(node.$ref, file));
    if (Array.isArray(node.allOf))
      node.allOf.forEach((s, i) => parts.push(sub(s, `allOf/${i}`)));
    for (const k of ["anyOf", "oneOf"]) {
      if (!Array.isArray(node[k])) continue;
      const alts = node[k].map((s, i) => sub(s, `${k}/${i}`));
      parts.push(alts.length === 1 ? alts[0] : Type.Union(alts));
    }
    if ("not" in node) parts.push(Type.Not(sub(node.not, "not")));
    const kept = parts.filter((p) => p[Kind] !== "Unknown");
    if (kept.length === 0) return Type.Unknown();
    return kept.length === 1 ? kept[0] : Type.Intersect(kept);
  }

  /** [{type, schema, constrained}] for null, boolean, number/integer, string, array, object. */
  typeBranches(node, file, sub, fail) {
    const rank = draftRank[file.draft];
    const num = (k) => {
      const v = node[k];
      if (v === undefined) return undefined;
      if (typeof v !== "number") fail(`${k} is not a number`);
      return v;
    };
    // Numbers.
    const numOpts = {};
    for (const k of [
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
    ])
      if (rank >= 6 ? num(k) !== undefined : k in node) numOpts[k] = node[k];
    if (rank < 6) {
      // Draft 4: boolean exclusiveMinimum / exclusiveMaximum modify minimum / maximum.
      for (const [ex, bound] of [
        ["exclusiveMinimum", "minimum"],
        ["exclusiveMaximum", "maximum"],
      ]) {
        const flag = numOpts[ex];
        delete numOpts[ex];
        if (flag !== undefined && typeof flag !== "boolean")
          fail(`${ex} is not a boolean`);
        if (flag === true && bound in numOpts) {
          numOpts[ex] = numOpts[bound];
          delete numOpts[bound];
        }
      }
    }
    if (num("multipleOf") !== undefined) {
      if (!Number.isInteger(node.multipleOf) || node.multipleOf <= 0)
        fail("a fractional multipleOf (TypeBox uses %, ajv a division)");
      numOpts.multipleOf = node.multipleOf;
    }
    // Strings: pattern and lengths (code points) as `u` regular expressions.
    const strParts = [];
    if (typeof node.format === "string" && stringFormats.has(node.format))
      strParts.push(Type.String({ format: node.format }));
    if (node.pattern !== undefined) {
      try {
        strParts.push(Type.RegExp(new RegExp(node.pattern, "u")));
      } catch (e) {
        fail(`pattern ${node.pattern}: ${errorText(e)}`);
      }
    }
    const minLength = num("minLength");
    const maxLength = num("maxLength");
    if (minLength !== undefined || maxLength !== undefined) {
      strParts.push(
        Type.RegExp(
          new RegExp(`^[\\s\\S]{${minLength ?? 0},${maxLength ?? ""}}$`, "u"),
        ),
      );
    }
    // Arrays.
    const arrOpts = {};
    for (const k of ["minItems", "maxItems"])
      if (num(k) !== undefined) arrOpts[k] = node[k];
    if (node.uniqueItems === true) arrOpts.uniqueItems = true;
    // items as an array (drafts 4 to 2019-09): a union of TypeBox tuples, one per allowed
    // length, when no array is longer than the list.
    let tuples = null;
    if (Array.isArray(node.items)) {
      const n = node.items.length;
      const longest = Math.min(
        num("maxItems") ?? Infinity,
        node.additionalItems === false ? n : Infinity,
      );
      if (longest > n)
        fail("items as an array with longer arrays allowed (no TypeBox type)");
      if (node.uniqueItems === true) fail("a tuple with uniqueItems");
      const each = node.items.map((s, i) => sub(s, `items/${i}`));
      tuples = [];
      for (let k = Math.max(0, num("minItems") ?? 0); k <= longest; k++)
        tuples.push(Type.Tuple(each.slice(0, k)));
    }
    if (rank >= 2020 && "prefixItems" in node)
      fail("prefixItems (a tuple) is not converted");
    if ("contains" in node && rank >= 6)
      arrOpts.contains = sub(node.contains, "contains");
    if (rank >= 2019) {
      if (num("minContains") !== undefined) {
        if (node.minContains === 0)
          fail("minContains: 0 (TypeBox always requires one match)");
        if ("contains" in node) arrOpts.minContains = node.minContains;
      }
      if (num("maxContains") !== undefined && "contains" in node)
        arrOpts.maxContains = node.maxContains;
    }
    const items =
      "items" in node && !tuples ? sub(node.items, "items") : Type.Unknown();
    const arrConstrained = "items" in node || Object.keys(arrOpts).length > 0;
    let arrSchema = Type.Array(items, arrOpts);
    if (tuples) {
      const union = tuples.length === 1 ? tuples[0] : Type.Union(tuples);
      // The lengths are in the union; the other array keywords stay beside it.
      const rest = { ...arrOpts };
      delete rest.minItems;
      delete rest.maxItems;
      arrSchema =
        Object.keys(rest).length === 0
          ? union
          : Type.Intersect([union, Type.Array(Type.Unknown(), rest)]);
    }
    // Objects.
    const objOpts = {};
    for (const k of ["minProperties", "maxProperties"])
      if (num(k) !== undefined) objOpts[k] = node[k];
    const props = {};
    const properties = node.properties ?? {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const k of [...Object.keys(properties), ...required])
      if (k in Object.prototype)
        fail(`property ${k} (TypeBox reads it through Object.prototype)`);
    for (const [k, s] of Object.entries(properties)) {
      const t = sub(s, `properties/${escapeToken(k)}`);
      props[k] = required.has(k) ? t : Type.Optional(t);
    }
    const ap = node.additionalProperties;
    const pp = node.patternProperties ?? {};
    const patterns = Object.keys(pp);
    if (patterns.length > 0 && ap !== undefined && ap !== true)
      fail("patternProperties with additionalProperties");
    for (const k of required) {
      if (k in props) continue;
      if (ap !== undefined && ap !== true)
        fail(`required ${k} is not among the properties`);
      props[k] = Type.Unknown();
    }
    if (ap === false) objOpts.additionalProperties = false;
    else if (ap !== undefined && ap !== true)
      objOpts.additionalProperties = sub(ap, "additionalProperties");
    const objAll = [Type.Object(props, objOpts)];
    for (const p of patterns) {
      if (!unicodeInsensitive(p))
        fail(`patternProperties key ${p} (TypeBox has no u flag there)`);
      objAll.push(
        Type.Record(
          Type.String({ pattern: p }),
          sub(pp[p], `patternProperties/${escapeToken(p)}`),
        ),
      );
    }
    const objConstrained =
      Object.keys(props).length > 0 ||
      Object.keys(objOpts).length > 0 ||
      patterns.length > 0;
    return [
      { type: "null", schema: Type.Null(), constrained: false },
      { type: "boolean", schema: Type.Boolean(), constrained: false },
      {
        type: "number",
        schema: Type.Number(numOpts),
        integer: Type.Integer(numOpts),
        constrained: Object.keys(numOpts).length > 0,
      },
      {
        type: "string",
        schema:
          strParts.length === 0
            ? Type.String()
            : strParts.length === 1
              ? strParts[0]
              : Type.Intersect(strParts),
        constrained: strParts.length > 0,
      },
      {
        type: "array",
        schema: arrSchema,
        constrained: arrConstrained,
      },
      {
        type: "object",
        schema: objAll.length === 1 ? objAll[0] : Type.Intersect(objAll),
        constrained: objConstrained,
      },
    ];
  }
}

function typePart(branches, listed) {
  const alts = [];
  for (const b of branches) {
    if (listed === null) alts.push(b.schema);
    else if (listed.includes(b.type)) alts.push(b.schema);
    else if (b.type === "number" && listed.includes("integer"))
      alts.push(b.integer);
  }
  if (listed === null) alts.sort((a, b) => constrainedFirst(branches, a, b));
  return alts.length === 1 ? alts[0] : Type.Union(alts);
}

function constrainedFirst(branches, a, b) {
  const c = (s) => (branches.find((x) => x.schema === s)?.constrained ? 0 : 1);
  return c(a) - c(b);
}

function jsonType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const escapeToken = (k) => k.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * True when a pattern (TypeBox compiles patternProperties without the `u` flag) has the same
 * verdicts with and without `u`: ASCII only, no \p{..} or \u{..}, and every atom that can match
 * a non-ASCII character (., [^..], \S, \W, \D, classes holding those) is repeated with * or +
 * or ends the pattern (a surrogate pair then matches as one or two repetitions alike).
 */
function unicodeInsensitive(p) {
  try {
    new RegExp(p, "u");
  } catch {
    return false;
  }
  if (/[^\x20-\x7e]/.test(p) || /\\[pP]\{|\\u\{/.test(p)) return false;
  let i = 0;
  while (i < p.length) {
    let wide = false;
    const c = p[i];
    if (c === "\\") {
      wide = "SWD".includes(p[i + 1]);
      i += 2;
    } else if (c === "[") {
      let j = i + 1;
      if (p[j] === "^") {
        wide = true;
        j++;
      }
      if (p[j] === "]") j++;
      while (j < p.length && p[j] !== "]") {
        if (p[j] === "\\") {
          if ("SWD".includes(p[j + 1])) wide = true;
          j += 2;
        } else j++;
      }
      i = j + 1;
    } else {
      wide = c === ".";
      i++;
    }
    if (wide && i < p.length && !"*+".includes(p[i])) return false;
  }
  return true;
}
