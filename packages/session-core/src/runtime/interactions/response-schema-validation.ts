import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";
import { ParleyError } from "../../errors.js";
import type { JsonValue } from "../../schema/json.js";
import { RESPONSE_SCHEMA_FORMATS } from "./response-schema-formats.js";
import { responseSchemaProblem } from "./response-schema-subset.js";

/**
 * Custom Interaction types (docs/behaviour.md#custom-interaction-types): a request's
 * `response_schema`, chosen by a model and so untrusted, is accepted only inside the subset of
 * response-schema-subset.ts, and the answer's `payload` is enforced with Ajv whose `pattern`s run
 * on RE2 (linear time), never on backtracking `RegExp`.
 */

/** Ajv's regular-expression hook: every `pattern` compiles to RE2. */
const re2Engine: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    // Ajv keys compiled patterns by toString(); it must name the pattern.
    return { test: (value: string) => compiled.test(value), toString: () => `re2:${pattern}` };
  },
  { code: "re2js" },
);

/**
 * Compiled validators by schema text, least recently used evicted past `capacity`. Each validator
 * has an Ajv instance of its own: Ajv keeps every schema and pattern it compiled in its instance,
 * so a shared instance would grow for good; an evicted validator takes its instance with it.
 */
export class ResponseSchemaValidators {
  readonly #capacity: number;
  readonly #validators = new Map<string, ValidateFunction>();
  /** How many schemas were compiled (a cache miss each), for tests of the bound. */
  compilations = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#validators.size;
  }

  /** The validator of an accepted schema; throws `invalid_input` naming why a schema is refused. */
  validatorFor(schema: JsonValue): ValidateFunction {
    const problem = responseSchemaProblem(schema);
    if (problem !== null) {
      throw new ParleyError("invalid_input", `response_schema is refused (invalid_input): ${problem}`);
    }
    const key = JSON.stringify(schema);
    const cached = this.#validators.get(key);
    if (cached !== undefined) {
      this.#validators.delete(key);
      this.#validators.set(key, cached);
      return cached;
    }
    const validate = compile(schema);
    this.compilations += 1;
    this.#validators.set(key, validate);
    if (this.#validators.size > this.#capacity) {
      const [oldest] = this.#validators.keys();
      if (oldest !== undefined) this.#validators.delete(oldest);
    }
    return validate;
  }
}

function compile(schema: JsonValue): ValidateFunction {
  const ajv = new Ajv2020({
    allErrors: false,
    strict: false,
    validateSchema: false,
    code: { regExp: re2Engine },
  });
  for (const [name, validate] of Object.entries(RESPONSE_SCHEMA_FORMATS))
    ajv.addFormat(name, { type: "string", validate });
  try {
    return ajv.compile(schema as object);
  } catch (error) {
    throw new ParleyError("invalid_input", `response_schema is refused (invalid_input): ${String(error)}`);
  }
}

/** Enough for every form of every live session; past it the least recently used recompiles. */
export const RESPONSE_SCHEMA_CACHE_CAPACITY = 256;
const validators = new ResponseSchemaValidators(RESPONSE_SCHEMA_CACHE_CAPACITY);

/**
 * Request time: throws `invalid_input` when a schema is outside the subset or does not compile,
 * so a refused schema fails the request before any Interaction exists.
 */
export function assertAcceptableResponseSchema(schema: JsonValue): void {
  validators.validatorFor(schema);
}

function invalid(message: string): ParleyError {
  return new ParleyError("interaction_invalid_response", message);
}

/** Throws `interaction_invalid_response` naming the first violation when `payload` breaks `schema`. */
export function assertMatchesResponseSchema(schema: JsonValue, payload: JsonValue): void {
  let validate: ValidateFunction;
  try {
    validate = validators.validatorFor(schema);
  } catch (error) {
    // A stored request from before the subset: it can still be cancelled, never answered.
    throw invalid(`Session Interaction response_schema is not accepted: ${(error as Error).message}`);
  }
  if (validate(payload)) return;
  const [first] = validate.errors ?? [];
  const where =
    first?.instancePath === "" || first === undefined ? "payload" : `payload${first.instancePath}`;
  throw invalid(
    `Session Interaction response does not match response_schema: ${where} ${first?.message ?? "is invalid"}`,
  );
}
