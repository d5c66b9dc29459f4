import { ParleyError, type SessionInfo, type SessionRecord } from "@parley/session-core";
import { LIMITS, sessionListInputSchema, sessionListOutputSchema } from "@parley/session-core/contract";
import type { ApiServices } from "../services.js";
import { authedProcedure } from "../trpc.js";

/**
 * The caller's own sessions, newest first; an admin may ask for everyone's with `scope: "all"`.
 * A page costs two queries whatever its size: the rows, then their derived state.
 */
export const sessionList = authedProcedure
  .input(sessionListInputSchema)
  .output(sessionListOutputSchema)
  .query(async ({ ctx, input }) => {
    const { store } = ctx.services;
    const all = input?.scope === "all";
    if (all && ctx.user.role !== "admin") {
      throw new ParleyError("forbidden", "Only admins can list every user's sessions");
    }
    const title_contains = input?.query?.trim() ?? "";
    const page = await store.listSessions({
      ...(all ? {} : { owner_id: ctx.user.user_id }),
      ...(title_contains === "" ? {} : { title_contains }),
      cursor: input?.cursor ?? undefined,
      limit: input?.limit ?? LIMITS.session_page_default,
    });
    return { items: await infoOfPage(ctx.services, page.items), next_cursor: page.next_cursor };
  });

async function infoOfPage(services: ApiServices, records: SessionRecord[]): Promise<SessionInfo[]> {
  const { session_states, runtime } = services;
  if (session_states === undefined) {
    const items = await Promise.all(
      records.map(async (record) => (await runtime.openSession(record.session_id, record))?.info() ?? null),
    );
    return items.filter((item) => item !== null);
  }
  const states = await session_states.statesOf(records.map((record) => record.session_id));
  return records.map((record) => {
    const state = states.get(record.session_id);
    return {
      ...record,
      pending_interactions: state?.pending_interactions ?? 0,
      state: record.closed_at !== null ? "closed" : state?.running ? "running" : "idle",
    };
  });
}
