import { z } from "zod";
import { interactionSchema } from "../schema/interaction.js";
import { announceStartSchema, lastEventIdSchema } from "./common-inputs.js";

/**
 * The input of an interaction feed (`admin.onInteraction`, `session.onInteraction`): resume after
 * `lastEventId`, announce each (re)start with `announce_start`.
 */
export const interactionFeedInputSchema = z
  .strictObject({ lastEventId: lastEventIdSchema, announce_start: announceStartSchema })
  .optional();

/**
 * One event of an interaction feed: an Interaction created, answered or cancelled in a session;
 * `event_id` comes from one global sequence, so a member's feed (which skips other members'
 * sessions) has gaps in it and still resumes exactly after its last id.
 */
export const interactionFeedEventSchema = z.object({
  event_id: z.number().int().positive(),
  kind: z.enum(["created", "resolved", "denied", "cancelled", "failed"]),
  session_id: z.string(),
  interaction: interactionSchema,
});
export type InteractionFeedEvent = z.infer<typeof interactionFeedEventSchema>;
