import { z } from "zod";

/**
 * A prompt sent while a Turn runs or waits, committed and waiting for that Turn's next checkpoint
 * (docs/behaviour.md#commands). Every client of the session reads the same list
 * (`session.queuedPrompts`); a `session` mutation of type `queue` says when it changed.
 */
export const queuedPromptSchema = z.object({
  /** The prompt's idempotency key; a prompt sent without one cannot be withdrawn. */
  request_id: z.string().nullable(),
  query: z.string(),
  /** The Turn it joined. */
  turn_id: z.string(),
  created_at: z.number(),
});
export type QueuedPrompt = z.infer<typeof queuedPromptSchema>;

export const queuedPromptListSchema = z.object({ items: z.array(queuedPromptSchema) });
export type QueuedPromptList = z.infer<typeof queuedPromptListSchema>;

/**
 * What `withdrawPrompt` found, decided in the store: `withdrawn` (it will never run: cancelled by
 * this call, an earlier one, or a stop), `applied` (its Turn took it first), `starts_turn` (it is
 * the prompt that starts its Turn, not one queued behind it: stop the Turn instead).
 */
export const withdrawPromptStatusSchema = z.enum(["withdrawn", "applied", "starts_turn"]);
export const withdrawPromptResultSchema = z.object({ status: withdrawPromptStatusSchema });
export type WithdrawPromptResult = z.infer<typeof withdrawPromptResultSchema>;
