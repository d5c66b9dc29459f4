import { interactionResponseSchema, interactionResultSchema, type JsonValue } from "@parley/session-core";
import { z } from "zod";
import { openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";
import { sessionIdSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

const MAX_PAYLOAD_DEPTH = 8;

/**
 * Size limits on an answer's payload, checked before anything reaches the runtime: no string over
 * `answer_chars`, no array over `answers_per_interaction` items (so at most 50 answers, and at most
 * 50 values in a multi-select answer), no nesting deeper than any real answer needs. Whether the
 * answer fits its request (question ids, options, decision) is the runtime's check
 * (`interaction_invalid_response`).
 */
function checkPayloadLimits(value: JsonValue, context: z.RefinementCtx, path: (string | number)[]): void {
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

export const sessionRespondInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  interaction_id: z.string().min(1).max(LIMITS.id_chars),
  response: interactionResponseSchema.superRefine((response, context) => {
    if (response.type.length > LIMITS.id_chars) {
      context.addIssue({ code: "custom", message: "response type is too long", path: ["type"] });
    }
    checkPayloadLimits(response.payload, context, ["payload"]);
  }),
});

export const sessionRespondOutputSchema = interactionResultSchema;

/** Answers a pending interaction as the caller (recorded as `responded_by`); the Turn resumes. */
export const sessionRespond = authedProcedure
  .input(sessionRespondInputSchema)
  .output(sessionRespondOutputSchema)
  .mutation(async ({ ctx, input }) => {
    const session = await openVisibleSession(ctx, input.session_id);
    return session.respond(
      { interaction_id: input.interaction_id, response: input.response },
      { user_id: ctx.user.user_id },
    );
  });
