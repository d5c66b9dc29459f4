import { z } from "zod";
import { jsonValueSchema } from "./json.js";

export const interactionStatusSchema = z.enum(["pending", "resolved", "denied", "cancelled", "failed"]);
export type InteractionStatus = z.infer<typeof interactionStatusSchema>;

export const cancelReasonSchema = z.enum(["turn_stopped", "session_disposed", "runtime_interrupted"]);
export type CancelReason = z.infer<typeof cancelReasonSchema>;

/** Every Interaction belongs to exactly one tool call. */
export const interactionSourceSchema = z.object({
  type: z.enum(["tool", "shell"]),
  tool_call_id: z.string().min(1),
  tool_name: z.string().optional(),
});
export type InteractionSource = z.infer<typeof interactionSourceSchema>;

/** What a producer asks for. `payload` is interpreted only by the producer, never by the core. */
export const interactionRequestSchema = z.object({
  interaction_id: z.string(),
  turn_id: z.string(),
  type: z.string().min(1),
  source: interactionSourceSchema,
  title: z.string().optional(),
  description: z.string().optional(),
  payload: jsonValueSchema,
  response_schema: jsonValueSchema.optional(),
  created_at: z.number(),
});
export type InteractionRequest = z.infer<typeof interactionRequestSchema>;

export const interactionOutcomeSchema = z.enum(["resolved", "denied"]);
export type InteractionOutcome = z.infer<typeof interactionOutcomeSchema>;

export const interactionResponseSchema = z.strictObject({
  type: z.string().min(1),
  outcome: interactionOutcomeSchema,
  payload: jsonValueSchema,
});
export type InteractionResponse = z.infer<typeof interactionResponseSchema>;

/**
 * An Interaction as embedded in its tool part (`tool.interactions[]`) and mirrored in the
 * `interactions` table. `interaction_type` always equals `request.type`.
 */
export const interactionSchema = z.object({
  interaction_id: z.string(),
  interaction_type: z.string(),
  status: interactionStatusSchema,
  request: interactionRequestSchema,
  response: interactionResponseSchema.optional(),
  resolved_at: z.number().optional(),
  cancel_reason: cancelReasonSchema.optional(),
  /** Parley: user id of whoever answered, for the audit trail. */
  responded_by: z.string().optional(),
  /**
   * When the waiting tool continued with this answer (set by the Turn's owner, fenced by its lease
   * epoch, before the tool's code runs on). A `resolved` interaction without it had not been handed
   * to its tool yet when its process died, so recovery runs the tool again and hands it over then
   * (the side effect happens once).
   */
  resumed_at: z.number().optional(),
});
export type Interaction = z.infer<typeof interactionSchema>;

export const interactionResultSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("resolved"),
    interaction_id: z.string(),
    response: interactionResponseSchema,
  }),
  z.object({ status: z.literal("denied"), interaction_id: z.string(), reason: z.string().optional() }),
  z.object({ status: z.literal("cancelled"), interaction_id: z.string(), reason: cancelReasonSchema }),
  z.object({ status: z.literal("failed"), interaction_id: z.string(), error: z.string() }),
]);
export type InteractionResult = z.infer<typeof interactionResultSchema>;

export const respondInputSchema = z.strictObject({
  interaction_id: z.string().min(1),
  response: interactionResponseSchema,
});
export type RespondInput = z.infer<typeof respondInputSchema>;

/** What a producer passes to `interactions.request`; id, created_at and source are filled in. */
export const interactionRequestInputSchema = z.object({
  type: z.string(),
  turn_id: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string().optional(),
  source_type: z.enum(["tool", "shell"]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  payload: jsonValueSchema,
  response_schema: jsonValueSchema.optional(),
});
export type InteractionRequestInput = z.infer<typeof interactionRequestInputSchema>;
