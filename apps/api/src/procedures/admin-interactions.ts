import {
  adminInteractionsInputSchema,
  adminInteractionsOutputSchema,
  LIMITS,
} from "@parley/session-core/contract";
import { storeInboxReader } from "../inbox/inbox-reader.js";
import { adminProcedure } from "../trpc.js";

/** The inbox: interactions across all sessions, oldest pending first, with session and owner names. */
export const adminInteractions = adminProcedure
  .input(adminInteractionsInputSchema)
  .output(adminInteractionsOutputSchema)
  .query(async ({ ctx, input }) => {
    const { store, auth, inbox } = ctx.services;
    const reader = inbox ?? storeInboxReader(store, auth);
    const page = await reader.page({
      status: input?.status,
      type: input?.type,
      tool_name: input?.tool_name,
      session_id: input?.session_id,
      cursor: input?.cursor ?? undefined,
      limit: input?.limit ?? LIMITS.inbox_page_default,
    });
    return {
      items: page.items.map(({ record, session_title, owner_id, owner_name }) => ({
        interaction: record.interaction,
        session_id: record.session_id,
        session_title,
        owner_id,
        owner_name,
        tool_name: record.tool_name,
        tool_call_id: record.tool_call_id,
        created_at: record.interaction.request.created_at,
      })),
      next_cursor: page.next_cursor,
    };
  });
