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
