import { describe, expect, it } from "vitest";
import type { ParleyError } from "../../errors.js";
import { assertMatchesResponseSchema } from "./response-schema-validation.js";

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

describe("response_schema enforcement (Ajv)", () => {
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
});
