import { z } from "zod";
import { jsonValueSchema } from "./json.js";
import { assistantPartSchema, userTextPartSchema } from "./parts.js";

/**
 * Every message has a `sequence` (its linear position in the session, fixed at creation) and a
 * `revision` (1 at creation, +1 on every committed change; 0 only in the live `message` mutation of
 * an assistant message before its first checkpoint, DESIGN §10.6 — never stored).
 */
const messageBase = {
  message_id: z.string(),
  session_id: z.string(),
  turn_id: z.string().optional(),
  sequence: z.number().int().positive(),
  revision: z.number().int().nonnegative(),
  created_at: z.number(),
  updated_at: z.number(),
};

export const userMessageSchema = z.object({
  ...messageBase,
  type: z.literal("user"),
  input_type: z.enum(["prompt", "steer"]),
  parts: z.array(userTextPartSchema),
});
export type UserMessage = z.infer<typeof userMessageSchema>;

export const assistantStatusSchema = z.enum(["streaming", "completed", "stopped", "failed"]);
export type AssistantStatus = z.infer<typeof assistantStatusSchema>;

export const assistantMessageSchema = z.object({
  ...messageBase,
  type: z.literal("assistant"),
  /** 1-based index of this assistant message within its Turn. */
  segment_index: z.number().int().positive(),
  status: assistantStatusSchema,
  /**
   * `streaming` while the current Step's model stream is open, `finished` once it ended. A message
   * found `streaming` here after a crash had its stream cut and is not replayed
   * (docs/behaviour.md#durability).
   */
  model_stream: z.enum(["streaming", "finished"]),
  parts: z.array(assistantPartSchema),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

export const actionMessageSchema = z.object({
  ...messageBase,
  type: z.literal("action"),
  action_type: z.string(),
  status: z.enum(["running", "completed", "failed"]),
  title: z.string(),
  description: z.string().optional(),
  data: jsonValueSchema.optional(),
});
export type ActionMessage = z.infer<typeof actionMessageSchema>;

export const errorMessageSchema = z.object({
  ...messageBase,
  type: z.literal("error"),
  scope: z.enum(["session", "turn"]),
  code: z.string(),
  message: z.string(),
  recoverable: z.boolean(),
});
export type ErrorMessage = z.infer<typeof errorMessageSchema>;

export const sessionMessageSchema = z.discriminatedUnion("type", [
  userMessageSchema,
  assistantMessageSchema,
  actionMessageSchema,
  errorMessageSchema,
]);
export type SessionMessage = z.infer<typeof sessionMessageSchema>;
