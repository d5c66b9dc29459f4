import { z } from "zod";
import { sessionSetInputSchema, stopResultSchema } from "./session.js";

/**
 * Durable session commands (docs/behaviour.md#commands): `prompt` (while a Turn runs or waits),
 * `set` and `stop`, committed by whichever instance received the call and applied by whichever
 * instance runs the session's Turn, exactly as it applies its own.
 */
export const promptCommandInputSchema = z.object({ query: z.string() });

/**
 * `set`'s input is the `session.set` input object (`{ model_id?, security? }`) holding only what
 * changes against the configured values, with the options resolved at the call.
 */
export const setCommandInputSchema = z.object({
  input: sessionSetInputSchema,
  persist_action: z.boolean(),
  publish_mutation: z.boolean(),
});

export const stopCommandInputSchema = z.object({
  reason: z.enum(["turn_stopped", "session_disposed"]),
});

const commandBase = {
  session_id: z.string(),
  command_id: z.string(),
  /** The call's idempotency key (`prompt` only), unique per session. */
  request_id: z.string().nullable(),
  /** `prompt`: the Turn it joins (assigned when it was committed). */
  turn_id: z.string().nullable(),
  status: z.enum(["queued", "applied", "cancelled"]),
  created_at: z.number(),
};

export const sessionCommandSchema = z.discriminatedUnion("kind", [
  z.object({ ...commandBase, kind: z.literal("prompt"), input: promptCommandInputSchema }),
  z.object({ ...commandBase, kind: z.literal("set"), input: setCommandInputSchema }),
  z.object({
    ...commandBase,
    kind: z.literal("stop"),
    input: stopCommandInputSchema,
    /** Set when the stop was applied: what `stop()` answers, whichever instance applied it. */
    result: stopResultSchema.nullable(),
  }),
]);

export type SessionCommand = z.infer<typeof sessionCommandSchema>;
export type PromptCommand = Extract<SessionCommand, { kind: "prompt" }>;
export type SetCommand = Extract<SessionCommand, { kind: "set" }>;
export type StopCommand = Extract<SessionCommand, { kind: "stop" }>;

/** What a caller commits; the store assigns the rest (status, turn_id, order). */
export type NewSessionCommand =
  | { kind: "prompt"; input: PromptCommand["input"]; request_id?: string }
  | { kind: "set"; input: SetCommand["input"] }
  | { kind: "stop"; input: StopCommand["input"] };

/** A command's end, written in the commit that applies (or cancels) it. */
export interface CommandSettlement {
  command_id: string;
  status: "applied" | "cancelled";
  /** `stop`: what the stop answered. */
  result?: z.infer<typeof stopResultSchema>;
}
