import { describe, expect, it } from "vitest";
import type { ParleyError } from "../../errors.js";
import {
  assertAcceptableResponseSchema,
  assertMatchesResponseSchema,
  ResponseSchemaValidators,
} from "./response-schema-validation.js";

const SCHEMA = {
  type: "object",
  required: ["ok"],
  additionalProperties: false,
  properties: { ok: { type: "boolean" }, count: { type: "integer", minimum: 1 } },
};

function refusal(schema: unknown, payload: unknown): ParleyError | null {
  try {
    assertMatchesResponseSchema(schema as never, payload as never);
    return null;
  } catch (error) {
    return error as ParleyError;
  }
}

function requestRefusal(schema: unknown): ParleyError | null {
  try {
    assertAcceptableResponseSchema(schema as never);
    return null;
  } catch (error) {
    return error as ParleyError;
  }
}

describe("response_schema enforcement (Ajv with RE2 patterns)", () => {
  it("accepts a payload that fits", () => {
    expect(refusal(SCHEMA, { ok: true, count: 2 })).toBeNull();
  });

  it("refuses a payload that breaks the schema with interaction_invalid_response naming the place", () => {
    expect(refusal(SCHEMA, { ok: true, count: 0 })).toMatchObject({
      code: "interaction_invalid_response",
      message: "Session Interaction response does not match response_schema: payload/count must be >= 1",
    });
    expect(refusal(SCHEMA, {})).toMatchObject({
      code: "interaction_invalid_response",
      message:
        "Session Interaction response does not match response_schema: payload must have required property 'ok'",
    });
  });

  it("refuses when the schema itself is not a JSON Schema", () => {
    expect(refusal({ type: "no-such-type" }, {})?.code).toBe("interaction_invalid_response");
    expect(refusal("text", {})?.code).toBe("interaction_invalid_response");
  });

  it("refuses a schema outside the subset at request time with invalid_input", () => {
    expect(requestRefusal({ $async: true, type: "object" })).toMatchObject({
      code: "invalid_input",
      message:
        "response_schema is refused (invalid_input): schema uses $async, which is outside the accepted subset",
    });
    expect(requestRefusal({ type: "object", properties: { a: { $ref: "#" } } })?.code).toBe("invalid_input");
    expect(requestRefusal(SCHEMA)).toBeNull();
  });

  it("refuses an answer to a stored schema outside the subset with interaction_invalid_response", () => {
    expect(refusal({ $id: "form", type: "object" }, {})).toMatchObject({
      code: "interaction_invalid_response",
      message:
        "Session Interaction response_schema is not accepted: response_schema is refused (invalid_input): schema uses $id, which is outside the accepted subset",
    });
  });

  // No clock here: a backtracking engine needs about 2^n steps for n a's and a "!" (95 s for 40 on
  // this kind of machine, and twice that for each a more), so with 50 a's the case could not end
  // within the project's 30 s test timeout; RE2 decides it in a linear pass.
  it("decides ^(a+)+$ against fifty a's and a ! (RE2, no backtracking)", () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    expect(refusal(schema, { name: `${"a".repeat(50)}!` })?.message).toBe(
      'Session Interaction response does not match response_schema: payload/name must match pattern "^(a+)+$"',
    );
    expect(refusal(schema, { name: "a".repeat(50) })).toBeNull();
  });

  it("stays linear: a hostile answer of 200 000 characters is decided", () => {
    const schema = { type: "string", pattern: "^(a+)+$" };
    expect(refusal(schema, `${"a".repeat(200_000)}!`)?.code).toBe("interaction_invalid_response");
    expect(refusal(schema, "a".repeat(200_000))).toBeNull();
  });

  it("keeps two patterns of one schema apart", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string", pattern: "^a+$" }, b: { type: "string", pattern: "^b+$" } },
    };
    expect(refusal(schema, { a: "aa", b: "bb" })).toBeNull();
    expect(refusal(schema, { a: "aa", b: "aa" })?.message).toBe(
      'Session Interaction response does not match response_schema: payload/b must match pattern "^b+$"',
    );
  });

  it("checks the listed formats", () => {
    const schema = (format: string) => ({ type: "string", format });
    expect(refusal(schema("date"), "2026-02-28")).toBeNull();
    expect(refusal(schema("date"), "2026-02-30")?.code).toBe("interaction_invalid_response");
    expect(refusal(schema("date-time"), "2026-12-03T19:05:00Z")).toBeNull();
    expect(refusal(schema("date-time"), "2026-12-03T25:05:00Z")?.code).toBe("interaction_invalid_response");
    expect(refusal(schema("time"), "19:05:00+01:00")).toBeNull();
    expect(refusal(schema("email"), "ada@example.com")).toBeNull();
    expect(refusal(schema("email"), "ada@example")?.code).toBe("interaction_invalid_response");
    expect(refusal(schema("uri"), "https://example.com/a")).toBeNull();
    expect(refusal(schema("uri"), "not a uri")?.code).toBe("interaction_invalid_response");
    expect(refusal(schema("uuid"), "123e4567-e89b-12d3-a456-426614174000")).toBeNull();
    expect(refusal(schema("uuid"), "123e4567")?.code).toBe("interaction_invalid_response");
  });
});

describe("the compiled-validator cache", () => {
  const schemaNamed = (name: string) => ({ type: "object", required: [name] });

  it("holds at most its capacity, evicting the least recently used", () => {
    const validators = new ResponseSchemaValidators(2);
    validators.validatorFor(schemaNamed("a"));
    validators.validatorFor(schemaNamed("b"));
    validators.validatorFor(schemaNamed("a"));
    expect(validators.compilations).toBe(2);
    validators.validatorFor(schemaNamed("c"));
    expect(validators.size).toBe(2);
    expect(validators.compilations).toBe(3);
    validators.validatorFor(schemaNamed("a"));
    expect(validators.compilations).toBe(3);
    validators.validatorFor(schemaNamed("b"));
    expect(validators.compilations).toBe(4);
    expect(validators.size).toBe(2);
  });

  it("stays at its capacity across a hundred distinct schemas", () => {
    const validators = new ResponseSchemaValidators(16);
    for (let index = 0; index < 100; index += 1) validators.validatorFor(schemaNamed(`field${index}`));
    expect(validators.size).toBe(16);
    expect(validators.compilations).toBe(100);
  });

  it("caches by content: an equal schema built anew compiles once", () => {
    const validators = new ResponseSchemaValidators(4);
    const first = validators.validatorFor(schemaNamed("a"));
    expect(validators.validatorFor(schemaNamed("a"))).toBe(first);
    expect(validators.compilations).toBe(1);
  });
});
