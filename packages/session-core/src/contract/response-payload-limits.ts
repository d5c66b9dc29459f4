import type { z } from "zod";
import type { JsonValue } from "../schema/json.js";
import { LIMITS } from "./limits.js";

const MAX_PAYLOAD_DEPTH = 8;

/**
 * Size limits on an answer's payload, checked before anything reaches the runtime: no string over
 * `answer_chars`, no array over `answers_per_interaction` items (so at most 50 answers, and at most
 * 50 values in a multi-select answer), no nesting deeper than any real answer needs. Whether the
 * answer fits its request (question ids, options, decision) is the runtime's check
 * (`interaction_invalid_response`).
 */
export function checkPayloadLimits(
  value: JsonValue,
  context: z.RefinementCtx,
  path: (string | number)[],
): void {
  if (path.length > MAX_PAYLOAD_DEPTH) {
    context.addIssue({ code: "custom", message: "response payload is nested too deeply", path });
    return;
  }
  if (typeof value === "string") {
    if (value.length > LIMITS.answer_chars) {
      context.addIssue({
        code: "custom",
        message: `an answer may hold at most ${LIMITS.answer_chars} characters`,
        path,
      });
    }
  } else if (Array.isArray(value)) {
    if (value.length > LIMITS.answers_per_interaction) {
      context.addIssue({
        code: "custom",
        message: `at most ${LIMITS.answers_per_interaction} answers or values are allowed`,
        path,
      });
      return;
    }
    value.forEach((item, index) => {
      checkPayloadLimits(item, context, [...path, index]);
    });
  } else if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length > LIMITS.answers_per_interaction) {
      context.addIssue({ code: "custom", message: "response payload has too many fields", path });
      return;
    }
    for (const [key, item] of entries) checkPayloadLimits(item, context, [...path, key]);
  }
}
