import { z } from "zod";
import { approvalModeSchema } from "./approval-mode.js";
import { sessionMessageSchema } from "./messages.js";
import { assistantPartSchema } from "./parts.js";
import { toolAllowancesSchema } from "./tool-allowance.js";

const mutationBase = {
  /** Per session, strictly increasing and gap-free; assigned when the change is committed. */
  event_id: z.number().int().positive(),
  mutation_id: z.string(),
  session_id: z.string(),
  created_at: z.number(),
};

/**
 * Set on a live mutation (DESIGN §10.6): a text or reasoning `delta`, a tool's `input-streaming` or
 * `ready` part, or an assistant message before its first checkpoint (`revision: 0`). It is published
 * at once and never committed: `event_id` is that of the last durable mutation it follows (not a new
 * one), `revision` the message revision it builds on. Clients apply it on top of that state and drop
 * it on reconnect; the next checkpoint (or `session.messages`) carries its persisted form.
 */
const liveField = { live: z.literal(true).optional() };

export const messageMutationSchema = z.object({
  ...mutationBase,
  ...liveField,
  variant: z.literal("message"),
  type: z.enum(["user", "assistant", "action", "error"]),
  message_id: z.string(),
  turn_id: z.string().optional(),
  sequence: z.number(),
  revision: z.number(),
  message: sessionMessageSchema,
});

export const partMutationSchema = z.object({
  ...mutationBase,
  ...liveField,
  variant: z.literal("part"),
  type: z.enum(["text", "reasoning", "tool", "step-start", "file", "source"]),
  message_id: z.string(),
  turn_id: z.string().optional(),
  /** Revision of the parent message after the change. */
  revision: z.number(),
  part_id: z.string(),
  part: assistantPartSchema,
});

export const deltaMutationSchema = z.object({
  ...mutationBase,
  ...liveField,
  variant: z.literal("delta"),
  type: z.enum(["text", "reasoning"]),
  message_id: z.string(),
  turn_id: z.string().optional(),
  revision: z.number(),
  part_id: z.string(),
  /** The appended fragment, not the cumulative text. */
  delta: z.string(),
});

export const turnMutationSchema = z.object({
  ...mutationBase,
  variant: z.literal("turn"),
  type: z.enum(["start", "finish"]),
  turn_id: z.string(),
  status: z.enum(["running", "completed", "failed", "stopped"]),
  text: z.string().optional(),
  error: z.string().optional(),
});

export const sessionInfoMutationSchema = z.object({
  ...mutationBase,
  variant: z.literal("session"),
  /** `queue`: the session's queued prompts changed (re-read `session.queuedPrompts`); no fields. */
  type: z.enum(["title", "config", "closed", "queue"]),
  title: z.string().optional(),
  approval_mode: approvalModeSchema.optional(),
  effective_approval_mode: approvalModeSchema.optional(),
  tool_allowances: toolAllowancesSchema.optional(),
  effective_tool_allowances: toolAllowancesSchema.optional(),
  model_id: z.string().optional(),
  effective_model_id: z.string().optional(),
  closed_at: z.number().optional(),
});

export const sessionMutationSchema = z.discriminatedUnion("variant", [
  messageMutationSchema,
  partMutationSchema,
  deltaMutationSchema,
  turnMutationSchema,
  sessionInfoMutationSchema,
]);
export type SessionMutation = z.infer<typeof sessionMutationSchema>;
export type MessageMutation = z.infer<typeof messageMutationSchema>;
export type PartMutation = z.infer<typeof partMutationSchema>;
export type DeltaMutation = z.infer<typeof deltaMutationSchema>;
export type TurnMutation = z.infer<typeof turnMutationSchema>;
export type SessionInfoMutation = z.infer<typeof sessionInfoMutationSchema>;

/** True for a live mutation (`live: true`, §10.6): applied on top of durable state, never replayed. */
export function isLiveMutation(mutation: SessionMutation): boolean {
  return "live" in mutation && mutation.live === true;
}

/**
 * A mutation before the store sequenced it: the store assigns its `event_id` and, from that, its
 * `mutation_id` (`durableMutationId`).
 */
export type UnsequencedMutation = SessionMutation extends infer M
  ? M extends SessionMutation
    ? Omit<M, "event_id" | "mutation_id">
    : never
  : never;

/**
 * The `mutation_id` of a durable mutation: its session's id and its own event id, which identify it
 * already. Derived, so the replay log does not store it (a random id took 42 bytes of every entry).
 * A live mutation, which has no event id of its own, has a random one.
 */
export function durableMutationId(session_id: string, event_id: number): string {
  return `mutation:${session_id}:${event_id}`;
}

/** `mutation` as the store logs it as event `event_id`: with that id and the id derived from it. */
export function sequencedMutation(mutation: UnsequencedMutation, event_id: number): SessionMutation {
  return {
    ...mutation,
    event_id,
    mutation_id: durableMutationId(mutation.session_id, event_id),
  } as SessionMutation;
}
