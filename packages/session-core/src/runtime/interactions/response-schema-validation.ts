import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { ParleyError } from "../../errors.js";
import type { JsonValue } from "../../schema/json.js";

/**
 * Custom Interaction types (docs/behaviour.md#custom-interaction-types): a request's
 * `response_schema` (JSON Schema, 2020-12 or the draft-07 subset it shares) is enforced on the
 * answer's `payload` with Ajv. Compiled validators are kept per schema text, so a schema repeated
 * by every call of a tool compiles once.
 */
const ajv = new Ajv2020({ allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 500;

function invalid(message: string): ParleyError {
  return new ParleyError("interaction_invalid_response", message);
}

function validatorFor(schema: JsonValue): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as object);
  } catch (error) {
    throw invalid(`Session Interaction response_schema is not a valid JSON Schema: ${String(error)}`);
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(key, validate);
  return validate;
}

/** Throws `interaction_invalid_response` naming the first violation when `payload` breaks `schema`. */
export function assertMatchesResponseSchema(schema: JsonValue, payload: JsonValue): void {
  if (typeof schema !== "object" && typeof schema !== "boolean") {
    throw invalid("Session Interaction response_schema is not a valid JSON Schema");
  }
  const validate = validatorFor(schema);
  if (validate(payload)) return;
  const [first] = validate.errors ?? [];
  const where =
    first?.instancePath === "" || first === undefined ? "payload" : `payload${first.instancePath}`;
  throw invalid(
    `Session Interaction response does not match response_schema: ${where} ${first?.message ?? "is invalid"}`,
  );
}
