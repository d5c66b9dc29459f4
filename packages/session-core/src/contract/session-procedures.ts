import { z } from "zod";
import { approvalModeSchema } from "../schema/approval-mode.js";
import { interactionRequestSchema, interactionResponseSchema } from "../schema/interaction.js";
import { jsonValueSchema } from "../schema/json.js";
import { sessionMessageSchema } from "../schema/messages.js";
import { sessionInfoSchema, sessionSetInputSchema, sessionSetOptionsSchema } from "../schema/session.js";
import { announceStartSchema, cursorSchema, lastEventIdSchema, sessionIdSchema } from "./common-inputs.js";
import { LIMITS } from "./limits.js";
import { checkPayloadLimits } from "./response-payload-limits.js";

export const sessionCreateInputSchema = z
  .strictObject({
    title: z.string().max(LIMITS.title_chars).optional(),
    approval_mode: approvalModeSchema.optional(),
    /** One of `model.list`; default: the first (`PARLEY_MODEL`). Unknown ids are `invalid_input`. */
    model_id: z.string().min(1).max(LIMITS.id_chars).optional(),
    workspace_id: z.string().min(1).max(LIMITS.id_chars).nullish(),
  })
  .optional();
export type CreateSessionInput = z.input<typeof sessionCreateInputSchema>;

export const sessionListInputSchema = z
  .strictObject({
    cursor: cursorSchema.nullish(),
    limit: z.number().int().min(1).max(LIMITS.session_page_max).optional(),
    /** `all`: every user's sessions (admins only; a member gets `forbidden`). Default `own`. */
    scope: z.enum(["own", "all"]).optional(),
    /** Only sessions whose title contains this text (case-insensitive); blank means no filter. */
    query: z.string().max(LIMITS.title_chars).optional(),
  })
  .optional();
export type SessionListQuery = z.input<typeof sessionListInputSchema>;

export const sessionListOutputSchema = z.object({
  items: z.array(sessionInfoSchema),
  next_cursor: z.string().nullable(),
});
export type SessionListPage = z.infer<typeof sessionListOutputSchema>;

export const sessionMessagesInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  before_sequence: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(LIMITS.message_page_max).optional(),
});
export type MessagesQuery = Omit<z.input<typeof sessionMessagesInputSchema>, "session_id">;

export const sessionMessagesOutputSchema = z.object({
  items: z.array(sessionMessageSchema),
  has_more: z.boolean(),
  next_before_sequence: z.number().int().nullable(),
});
export type MessagePage = z.infer<typeof sessionMessagesOutputSchema>;

export const sessionPromptInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  query: z
    .string()
    .max(LIMITS.prompt_chars)
    .refine((query) => query.trim().length > 0, "query must not be empty"),
  request_id: z.string().min(1).max(LIMITS.id_chars).optional(),
});
/** A prompt's text, or the text with a `request_id` that makes retries idempotent. */
export type PromptInput = string | Omit<z.input<typeof sessionPromptInputSchema>, "session_id">;

export const sessionPromptOutputSchema = z.object({ turn_id: z.string() });
export type PromptResult = z.infer<typeof sessionPromptOutputSchema>;

/** The title counts after trimming: blank or longer than `title_chars` is `invalid_input`. */
export const sessionRenameInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  title: z.string().trim().min(1).max(LIMITS.title_chars),
});

export const sessionCloseOutputSchema = z.object({ closed: z.literal(true) });

export const sessionInteractionsOutputSchema = z.array(interactionRequestSchema);

/**
 * The answer as the wire takes it: the shape of the envelope (`type`, known keys) is checked here
 * (`invalid_input`), while `outcome` and `payload` are the runtime's to judge, so an outcome other
 * than `resolved`/`denied` or a missing payload is `interaction_invalid_response` (DESIGN.md §4/§9),
 * not a schema refusal.
 */
const respondResponseWireSchema = z.strictObject({
  type: interactionResponseSchema.shape.type,
  outcome: jsonValueSchema.optional(),
  payload: jsonValueSchema.optional(),
});

export const sessionRespondInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  interaction_id: z.string().min(1).max(LIMITS.id_chars),
  response: respondResponseWireSchema.superRefine((response, context) => {
    if (response.type.length > LIMITS.id_chars) {
      context.addIssue({ code: "custom", message: "response type is too long", path: ["type"] });
    }
    if (response.payload !== undefined) checkPayloadLimits(response.payload, context, ["payload"]);
    if (response.outcome !== undefined) checkPayloadLimits(response.outcome, context, ["outcome"]);
  }),
});

export const sessionSetProcedureInputSchema = z
  .strictObject({
    session_id: sessionIdSchema,
    input: sessionSetInputSchema.refine(
      (input) => input.security !== undefined || input.model_id !== undefined,
      "session.set requires model or security",
    ),
    options: sessionSetOptionsSchema.optional(),
  })
  .refine(({ options }) => !(options?.persist_action === false && options.publish_mutation === true), {
    message: "session.set publish_mutation requires persist_action",
    path: ["options"],
  });

export const sessionSetOutputSchema = z.object({ queued: z.boolean() });
export type SessionSetResult = z.infer<typeof sessionSetOutputSchema>;

export const sessionOnMutationInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  lastEventId: lastEventIdSchema,
  announce_start: announceStartSchema,
});

/** `session.withdrawPrompt`: the queued prompt to withdraw, by the `request_id` it was sent with. */
export const sessionWithdrawPromptInputSchema = z.strictObject({
  session_id: sessionIdSchema,
  request_id: z.string().min(1).max(LIMITS.id_chars),
});
