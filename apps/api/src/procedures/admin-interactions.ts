import { interactionSchema, interactionStatusSchema } from "@parley/session-core";
import { z } from "zod";
import { storeInboxReader } from "../inbox/inbox-reader.js";
import { adminProcedure } from "../trpc.js";
import { cursorSchema, sessionIdSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

export const adminInteractionsInputSchema = z
  .strictObject({
    status: interactionStatusSchema.optional(),
    type: z.string().min(1).max(LIMITS.id_chars).optional(),
    tool_name: z.string().min(1).max(LIMITS.id_chars).optional(),
    session_id: sessionIdSchema.optional(),
    cursor: cursorSchema.nullish(),
    limit: z.number().int().min(1).max(LIMITS.inbox_page_max).optional(),
  })
  .optional();

export const adminInboxItemSchema = z.object({
  interaction: interactionSchema,
  session_id: z.string(),
  session_title: z.string(),
  owner_id: z.string(),
  owner_name: z.string().nullable(),
  tool_name: z.string(),
  tool_call_id: z.string(),
  created_at: z.number(),
});

export const adminInteractionsOutputSchema = z.object({
  items: z.array(adminInboxItemSchema),
  next_cursor: z.string().nullable(),
});

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
