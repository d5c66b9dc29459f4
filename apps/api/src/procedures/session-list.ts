import { ParleyError } from "@parley/session-core";
import { LIMITS, sessionListInputSchema, sessionListOutputSchema } from "@parley/session-core/contract";
import { authedProcedure } from "../trpc.js";

/** The caller's own sessions, newest first; an admin may ask for everyone's with `scope: "all"`. */
export const sessionList = authedProcedure
  .input(sessionListInputSchema)
  .output(sessionListOutputSchema)
  .query(async ({ ctx, input }) => {
    const { store, runtime } = ctx.services;
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
    const items = await Promise.all(
      page.items.map(async (record) => {
        const session = await runtime.openSession(record.session_id, record);
        return session === null ? null : session.info();
      }),
    );
    return { items: items.filter((item) => item !== null), next_cursor: page.next_cursor };
  });
