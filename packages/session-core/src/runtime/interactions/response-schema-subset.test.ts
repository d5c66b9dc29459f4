import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../schema/json.js";
import {
  RESPONSE_SCHEMA_MAX_BYTES,
  RESPONSE_SCHEMA_MAX_DEPTH,
  responseSchemaProblem,
} from "./response-schema-subset.js";

const FORM: JsonValue = {
  type: "object",
  title: "Deployment settings",
  required: ["environment", "replicas"],
  additionalProperties: false,
  properties: {
    environment: { type: "string", enum: ["staging", "production"], default: "staging" },
    replicas: { type: "integer", minimum: 1, maximum: 10 },
    notify: { type: ["boolean", "null"], const: true, description: "Notify the team" },
    checks: {
      type: "array",
      items: { type: "string", enum: ["tests", "smoke"] },
      uniqueItems: true,
      maxItems: 2,
    },
    when: { type: "string", format: "date-time" },
    code: { type: "string", pattern: "^[A-Z]{3}-\\d+$", minLength: 5, maxLength: 20 },
  },
};

/** A schema whose properties nest `levels` schemas deep (the root is level 1). */
function nested(levels: number): JsonValue {
  let schema: JsonValue = { type: "string" };
  for (let level = 1; level < levels; level += 1) schema = { type: "object", properties: { inner: schema } };
  return schema;
}

describe("the response_schema subset", () => {
  it("accepts a form using every keyword of the subset", () => {
    expect(responseSchemaProblem(FORM)).toBeNull();
  });

  it.each([
    ["$async", { $async: true, type: "object" }, "schema uses $async, which is outside the accepted subset"],
    [
      "$ref",
      { type: "object", properties: { a: { $ref: "#" } } },
      "schema.properties.a uses $ref, which is outside the accepted subset",
    ],
    [
      "$id",
      { $id: "https://example.com/form", type: "object" },
      "schema uses $id, which is outside the accepted subset",
    ],
    [
      "$dynamicRef",
      { $dynamicRef: "#meta" },
      "schema uses $dynamicRef, which is outside the accepted subset",
    ],
    [
      "$defs",
      { $defs: { a: { type: "string" } } },
      "schema uses $defs, which is outside the accepted subset",
    ],
    ["anyOf", { anyOf: [{ type: "string" }] }, "schema uses anyOf, which is outside the accepted subset"],
    [
      "patternProperties",
      { patternProperties: { "^a": {} } },
      "schema uses patternProperties, which is outside the accepted subset",
    ],
    [
      "a keyword hidden in items",
      { type: "array", items: { not: {} } },
      "schema.items uses not, which is outside the accepted subset",
    ],
    [
      "an additionalProperties schema",
      { additionalProperties: { type: "string" } },
      "schema: additionalProperties may only be false",
    ],
    [
      "uniqueItems over objects",
      { type: "array", items: { type: "object" }, uniqueItems: true },
      "schema: uniqueItems needs items of one scalar type",
    ],
    [
      "a backreference",
      { type: "string", pattern: "^(a)\\1$" },
      "schema: pattern is not a linear-time (RE2) regular expression",
    ],
    [
      "a lookahead",
      { type: "string", pattern: "^(?=a)a$" },
      "schema: pattern is not a linear-time (RE2) regular expression",
    ],
    [
      "a format off the list",
      { type: "string", format: "regex" },
      "schema: format must be one of date, time, date-time, email, uri, uuid",
    ],
    ["an unknown type", { type: "no-such-type" }, "schema: type must be one of"],
    ["a boolean schema", true, "schema must be a schema object"],
    ["a text schema", "text", "schema must be a schema object"],
    [
      "a negative maxLength",
      { type: "string", maxLength: -1 },
      "schema: maxLength must be a non-negative integer",
    ],
  ] as [string, JsonValue, string][])("refuses %s", (_name, schema, problem) => {
    expect(responseSchemaProblem(schema)).toContain(problem);
  });

  it(`accepts ${RESPONSE_SCHEMA_MAX_DEPTH} nested schemas and refuses ${RESPONSE_SCHEMA_MAX_DEPTH + 1} or 50`, () => {
    expect(responseSchemaProblem(nested(RESPONSE_SCHEMA_MAX_DEPTH))).toBeNull();
    expect(responseSchemaProblem(nested(RESPONSE_SCHEMA_MAX_DEPTH + 1))).toMatch(/nested deeper than 8$/);
    expect(responseSchemaProblem(nested(50))).toMatch(/nested deeper than 8$/);
  });

  it("refuses a literal nested deeper than the limit", () => {
    let value: JsonValue = 1;
    for (let level = 0; level < RESPONSE_SCHEMA_MAX_DEPTH; level += 1) value = [value];
    expect(responseSchemaProblem({ const: value })).toBe("schema: const is nested deeper than 8");
    expect(responseSchemaProblem({ enum: [value] })).toBe("schema: enum is nested deeper than 8");
  });

  it(`accepts ${RESPONSE_SCHEMA_MAX_BYTES} bytes and refuses one more, and refuses 1 MB before walking it`, () => {
    const padded = (bytes: number): JsonValue => {
      const bare = JSON.stringify({ description: "" }).length;
      return { description: "x".repeat(bytes - bare) };
    };
    expect(responseSchemaProblem(padded(RESPONSE_SCHEMA_MAX_BYTES))).toBeNull();
    expect(responseSchemaProblem(padded(RESPONSE_SCHEMA_MAX_BYTES + 1))).toBe(
      "response_schema is 16385 bytes, more than 16384",
    );
    expect(responseSchemaProblem(padded(1024 * 1024))).toBe(
      "response_schema is 1048576 bytes, more than 16384",
    );
  });

  it("counts the limit in UTF-8 bytes, not characters", () => {
    const bare = JSON.stringify({ description: "" }).length;
    const characters = Math.ceil((RESPONSE_SCHEMA_MAX_BYTES - bare) / 2);
    expect(responseSchemaProblem({ description: "é".repeat(characters) })).toBeNull();
    expect(responseSchemaProblem({ description: "é".repeat(characters + 1) })).toMatch(/more than 16384$/);
  });
});
