import { ParleyError } from "@parley/session-core";
import { interactionFeedInputSchema } from "@parley/session-core/contract";
import { toTRPCError } from "../errors.js";
import { findVisibleSession } from "../session-access.js";
import { interactionFeed } from "../subscriptions/interaction-feed.js";
import { type AuthedContext, authedProcedure } from "../trpc.js";

/**
 * Whether the caller may see a session, asked once per session for the subscription's life: a
 * session's owner never changes, so the verdict holds, and a busy feed costs one read per session
 * rather than one per event. The verdict is `findVisibleSession`'s, the rule of `session.get` and
 * `session.list` (a member: their own sessions; an admin: every session).
 */
function memoizedVisibility(context: AuthedContext): (session_id: string) => Promise<boolean> {
  const verdicts = new Map<string, Promise<boolean>>();
  return (session_id) => {
    let verdict = verdicts.get(session_id);
    if (verdict === undefined) {
      verdict = findVisibleSession(context, session_id).then(
        () => true,
        (error: unknown) => {
          if (error instanceof ParleyError && error.code === "session_not_found") return false;
          verdicts.delete(session_id);
          throw error;
        },
      );
      verdicts.set(session_id, verdict);
    }
    return verdict;
  };
}

/**
 * The interaction feed of the sessions the caller may see (docs/behaviour.md#subscriptions): the
 * events of `admin.onInteraction`, same shape and global `event_id`s, without those of other
 * members' sessions. The web app's title and Inbox counts follow it.
 */
export const sessionOnInteraction = authedProcedure
  .input(interactionFeedInputSchema)
  .subscription(async function* ({ ctx, input, signal }) {
    try {
      const { store, bus } = ctx.services;
      yield* interactionFeed({ store, bus, input, signal, includes: memoizedVisibility(ctx) });
    } catch (error) {
      throw toTRPCError(error);
    }
  });
