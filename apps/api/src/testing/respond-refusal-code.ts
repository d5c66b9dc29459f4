import type { ParleyCode } from "@parley/session-core";
import { LIMITS } from "@parley/session-core/contract";

/** The pending Interaction a fuzzed `session.respond` aims at. */
export interface RespondTarget {
  session_id: string;
  interaction_id: string;
  type: string;
}

const MAX_PAYLOAD_DEPTH = 8;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): boolean {
  return typeof value === "string" && value.length >= 1 && value.length <= LIMITS.id_chars;
}

function hasOnlyKeys(record: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(record).every((key) => allowed.includes(key));
}

/** docs/behaviour.md#limits: strings, arrays and objects of an answer are bounded, and so is nesting. */
export function exceedsAnswerLimits(value: unknown, depth = 1): boolean {
  if (depth > MAX_PAYLOAD_DEPTH) return true;
  if (typeof value === "string") return value.length > LIMITS.answer_chars;
  if (Array.isArray(value)) {
    return (
      value.length > LIMITS.answers_per_interaction ||
      value.some((item) => exceedsAnswerLimits(item, depth + 1))
    );
  }
  if (isPlainObject(value)) {
    const items = Object.values(value);
    return (
      items.length > LIMITS.answers_per_interaction ||
      items.some((item) => exceedsAnswerLimits(item, depth + 1))
    );
  }
  return false;
}

/**
 * The exact code DESIGN.md §4/§9 gives a refused `session.respond` call, in the order the server
 * checks: the envelope (`invalid_input`), the session, the outcome and presence of a payload, the
 * Interaction, its type, then the answer itself (`interaction_invalid_response`). Written from the
 * contract, not from the schemas, so a schema that refuses too early shows up as a wrong code.
 */
export function expectedRespondRefusal(rawCandidate: unknown, target: RespondTarget): ParleyCode {
  // What the server receives: the JSON form (NaN becomes null, -0 becomes 0).
  const candidate: unknown = JSON.parse(JSON.stringify(rawCandidate));
  if (!isPlainObject(candidate)) return "invalid_input";
  if (!hasOnlyKeys(candidate, ["session_id", "interaction_id", "response"])) return "invalid_input";
  const { session_id, interaction_id, response } = candidate;
  if (!isId(session_id) || !isId(interaction_id) || !isPlainObject(response)) return "invalid_input";
  if (!hasOnlyKeys(response, ["type", "outcome", "payload"]) || !isId(response.type)) return "invalid_input";
  if (exceedsAnswerLimits(response.payload) || exceedsAnswerLimits(response.outcome)) return "invalid_input";
  if (session_id !== target.session_id) return "session_not_found";
  const outcomeValid = response.outcome === "resolved" || response.outcome === "denied";
  if (!outcomeValid || response.payload === undefined) return "interaction_invalid_response";
  if (interaction_id !== target.interaction_id) return "interaction_not_found";
  if (response.type !== target.type) return "interaction_type_mismatch";
  return "interaction_invalid_response";
}
