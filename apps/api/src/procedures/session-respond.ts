import { type AnswerContext, interactionResultSchema, parseRespondInput } from "@parley/session-core";
import { sessionRespondInputSchema } from "@parley/session-core/contract";
import { assertVisibleOwner, openVisibleSession } from "../session-access.js";
import { authedProcedure } from "../trpc.js";

/**
 * Answers a pending interaction as the caller (recorded as `responded_by`); the Turn resumes. A
 * session the caller cannot see is `session_not_found` before anything about the answer is judged.
 */
export const sessionRespond = authedProcedure
  .input(sessionRespondInputSchema)
  .output(interactionResultSchema)
  .mutation(async ({ ctx, input }) => {
    // This instance runs the Turn and its tool waits here: checked and answered from memory.
    const held = ctx.services.runtime.heldAnswer(input.session_id, input.interaction_id);
    if (held) {
      assertVisibleOwner(ctx, input.session_id, held.owner_id);
      const answer = parseRespondInput({ interaction_id: input.interaction_id, response: input.response });
      return held.respond(answer, { user_id: ctx.user.user_id });
    }
    // The session's lock is asked for beside the read: an answer that resumes a parked Turn claims
    // it (`AnswerLock`); given back, whatever the outcome, unless the claim took it.
    const answer_lock = ctx.services.runtime.lockForAnswer(input.session_id);
    let context: AnswerContext | null = null;
    try {
      // The Interaction is read with the session its access check reads (one statement); the runtime
      // looks at it only once the check passed and the answer was judged, so nothing of it reaches a
      // caller who cannot see the session.
      context = await ctx.services.store.getAnswerContext(input.session_id, input.interaction_id);
      const session = await openVisibleSession(ctx, input.session_id, context?.session ?? null);
      const interaction = context?.interaction ?? null;
      // The wire leaves `outcome` and `payload` to the runtime, whose codes DESIGN.md §4/§9 fix.
      const answer = parseRespondInput({ interaction_id: input.interaction_id, response: input.response });
      return await session.respond(
        answer,
        { user_id: ctx.user.user_id },
        { interaction, ...(answer_lock ? { answer_lock } : {}) },
      );
    } finally {
      await answer_lock?.settle(context?.session ?? null);
    }
  });
