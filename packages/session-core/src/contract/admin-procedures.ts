import { z } from "zod";
import { interactionSchema, interactionStatusSchema } from "../schema/interaction.js";
import { userNameSchema, userRoleSchema } from "./account-procedures.js";
import { cursorSchema, sessionIdSchema } from "./common-inputs.js";
import {
  type InteractionFeedEvent,
  interactionFeedEventSchema,
  interactionFeedInputSchema,
} from "./interaction-feed.js";
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
export type AdminInteractionsQuery = z.input<typeof adminInteractionsInputSchema>;

/** One row of the admin inbox: an Interaction of any session, with its session and owner. */
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
export type AdminInboxItem = z.infer<typeof adminInboxItemSchema>;

export const adminInteractionsOutputSchema = z.object({
  items: z.array(adminInboxItemSchema),
  next_cursor: z.string().nullable(),
});
export type AdminInteractionsPage = z.infer<typeof adminInteractionsOutputSchema>;

/** `admin.onInteraction`: the interaction feed of every session. */
export const adminOnInteractionInputSchema = interactionFeedInputSchema;
export const adminInteractionEventSchema = interactionFeedEventSchema;
export type AdminInteractionEvent = InteractionFeedEvent;

export const adminUsersCreateInputSchema = z.strictObject({
  name: userNameSchema,
  role: userRoleSchema.default("member"),
});
export type CreateUserInput = z.input<typeof adminUsersCreateInputSchema>;

export const adminUsersCreateOutputSchema = z.object({ user_id: z.string(), token: z.string() });
export type CreatedUser = z.infer<typeof adminUsersCreateOutputSchema>;

export const adminUsersRevokeInputSchema = z.strictObject({ name: userNameSchema });
export type RevokeUserInput = z.input<typeof adminUsersRevokeInputSchema>;

export const adminUsersRevokeOutputSchema = z.object({ revoked: z.number().int().min(0) });
export type RevokedTokens = z.infer<typeof adminUsersRevokeOutputSchema>;
