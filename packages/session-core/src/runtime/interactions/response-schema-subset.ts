import { RE2JS } from "re2js";
import type { JsonValue } from "../../schema/json.js";
import { RESPONSE_SCHEMA_FORMATS } from "./response-schema-formats.js";

/**
 * The JSON Schema subset a model may choose for a `response_schema` (DESIGN §10.8): a form's
 * vocabulary and nothing that references, loads or loops. `$ref`, `$id`, `$async`,
 * `$dynamicRef` and every other keyword are outside it, so a schema can neither poison a shared
 * validator (a reused `$id`), nor turn validation asynchronous (an `$async` failure that crashes
 * the process), nor recurse. `additionalProperties: false` and `uniqueItems` (over scalar items
 * only, which Ajv checks with one hash pass) are kept beyond the note's list because the product's
 * own form (the demo's deploy form, the web form) relies on them, and both cost one pass over the
 * answer.
 */
export const RESPONSE_SCHEMA_MAX_BYTES = 16 * 1024;
/** Nesting of schemas: the root is 1, each `properties` member or `items` one more. */
export const RESPONSE_SCHEMA_MAX_DEPTH = 8;

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean"]);

type SchemaObject = { [key: string]: JsonValue };
type KeywordCheck = (value: JsonValue, schema: SchemaObject) => string | null;

function isObject(value: JsonValue | undefined): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: JsonValue): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** JSON nesting of a literal (`enum`, `const`, `default`), counted only as far as the limit. */
function literalTooDeep(value: JsonValue, depth: number): boolean {
  if (depth > RESPONSE_SCHEMA_MAX_DEPTH) return true;
  const children = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
  return children.some((child) => literalTooDeep(child, depth + 1));
}

function literalProblem(name: string, value: JsonValue): string | null {
  return literalTooDeep(value, 1) ? `${name} is nested deeper than ${RESPONSE_SCHEMA_MAX_DEPTH}` : null;
}

function literal(name: string): KeywordCheck {
  return (value) => literalProblem(name, value);
}

function text(name: string): KeywordCheck {
  return (value) => (typeof value === "string" ? null : `${name} must be a string`);
}

function count(name: string): KeywordCheck {
  return (value) => (isCount(value) ? null : `${name} must be a non-negative integer`);
}

function bound(name: string): KeywordCheck {
  return (value) => (typeof value === "number" && Number.isFinite(value) ? null : `${name} must be a number`);
}

function checkType(value: JsonValue): string | null {
  const types = Array.isArray(value) ? value : [value];
  const valid =
    types.length > 0 &&
    types.every((type) => typeof type === "string" && TYPES.has(type)) &&
    new Set(types).size === types.length;
  return valid ? null : `type must be one of ${[...TYPES].join(", ")} or a list of them`;
}

function checkPattern(value: JsonValue): string | null {
  if (typeof value !== "string") return "pattern must be a string";
  try {
    RE2JS.compile(value);
    return null;
  } catch (error) {
    return `pattern is not a linear-time (RE2) regular expression: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function checkUniqueItems(value: JsonValue, schema: SchemaObject): string | null {
  if (typeof value !== "boolean") return "uniqueItems must be a boolean";
  const items = schema.items;
  const scalarItems = isObject(items) && typeof items.type === "string" && SCALAR_TYPES.has(items.type);
  return value && !scalarItems ? "uniqueItems needs items of one scalar type" : null;
}

/** Keywords whose value is a literal or a bound; `properties` and `items` are walked below. */
const LEAF_KEYWORDS: Record<string, KeywordCheck> = {
  type: checkType,
  required: (value) =>
    Array.isArray(value) &&
    value.every((name) => typeof name === "string") &&
    new Set(value).size === value.length
      ? null
      : "required must be a list of distinct property names",
  enum: (value) =>
    Array.isArray(value) && value.length > 0
      ? literalProblem("enum", value)
      : "enum must be a non-empty list",
  const: literal("const"),
  default: literal("default"),
  title: text("title"),
  description: text("description"),
  minimum: bound("minimum"),
  maximum: bound("maximum"),
  minLength: count("minLength"),
  maxLength: count("maxLength"),
  minItems: count("minItems"),
  maxItems: count("maxItems"),
  format: (value) =>
    typeof value === "string" && Object.hasOwn(RESPONSE_SCHEMA_FORMATS, value)
      ? null
      : `format must be one of ${Object.keys(RESPONSE_SCHEMA_FORMATS).join(", ")}`,
  pattern: checkPattern,
  additionalProperties: (value) => (value === false ? null : "additionalProperties may only be false"),
  uniqueItems: checkUniqueItems,
};

function subschemaProblem(schema: JsonValue, depth: number, where: string): string | null {
  if (depth > RESPONSE_SCHEMA_MAX_DEPTH)
    return `${where}: schemas are nested deeper than ${RESPONSE_SCHEMA_MAX_DEPTH}`;
  if (!isObject(schema)) return `${where} must be a schema object`;
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "properties") {
      if (!isObject(value)) return `${where}.properties must be an object of schemas`;
      for (const [name, property] of Object.entries(value)) {
        const problem = subschemaProblem(property, depth + 1, `${where}.properties.${name}`);
        if (problem) return problem;
      }
      continue;
    }
    if (keyword === "items") {
      const problem = subschemaProblem(value, depth + 1, `${where}.items`);
      if (problem) return problem;
      continue;
    }
    const check = Object.hasOwn(LEAF_KEYWORDS, keyword) ? LEAF_KEYWORDS[keyword] : undefined;
    if (check === undefined) return `${where} uses ${keyword}, which is outside the accepted subset`;
    const problem = check(value, schema);
    if (problem) return `${where}: ${problem}`;
  }
  return null;
}

/**
 * Why `schema` is outside the accepted subset, or null when it is inside. Size is checked first
 * (on the UTF-8 text), so nothing larger than the limit is ever walked; the walk stops at the
 * depth limit, so a deep schema costs no more than a shallow one.
 */
export function responseSchemaProblem(schema: JsonValue): string | null {
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > RESPONSE_SCHEMA_MAX_BYTES) {
    return `response_schema is ${bytes} bytes, more than ${RESPONSE_SCHEMA_MAX_BYTES}`;
  }
  return subschemaProblem(schema, 1, "schema");
}
