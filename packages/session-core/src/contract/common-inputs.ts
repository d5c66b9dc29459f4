import { z } from "zod";
import { LIMITS } from "./limits.js";

export const sessionIdSchema = z.string().min(1).max(LIMITS.id_chars);

export const cursorSchema = z.string().min(1).max(1_000);

/**
 * The tracked id a client resumes from: the decimal `event_id` of the last event it received.
 * tRPC puts it into the input (from the WebSocket message or the SSE `Last-Event-ID` header).
 */
export const lastEventIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, "lastEventId must be the decimal event_id of a received event")
  .nullish();

/** `{ session_id }`, strict: the input of every single-session read and command without arguments. */
export const sessionTargetInputSchema = z.strictObject({ session_id: sessionIdSchema });

/**
 * Asks a subscription to send a `SubscriptionStarted` item each time it (re)starts. Off by default,
 * so a plain WebSocket or SSE consumer sees only events.
 */
export const announceStartSchema = z.boolean().optional();

/**
 * Sent (untracked) by a subscription that asked for it with `announce_start`, once the server
 * listens for live events and has replayed the log: every event after `last_event_id` will follow,
 * in order. `null`: the subscription started without a `lastEventId`, so only events committed from
 * now on follow — after a reconnect that started this way, anything committed while the connection
 * was down is not replayed and a client must re-read its snapshot.
 */
export const subscriptionStartedSchema = z.object({
  started: z.literal(true),
  last_event_id: z.number().int().nonnegative().nullable(),
});
export type SubscriptionStarted = z.infer<typeof subscriptionStartedSchema>;
