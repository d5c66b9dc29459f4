import type { InteractionWithMessage } from "../../ports/session-store.js";
import type { SessionHost } from "../session/session-host.js";
import { locateInteraction } from "../transitions/interaction-transitions.js";

/**
 * The Interaction `interaction_id` with its message, as this process last committed them, when the
 * session's Turn runs here (held live, or in its grace before parking) and the Interaction's tool
 * waits here for the answer: an answer to it reads nothing (docs/behaviour.md#durability).
 * Undefined otherwise. Judging an answer on this copy refuses only what a read would refuse too:
 * Interactions only move forward (pending → terminal), and the answer's commit is checked against
 * the stored revision — a copy outdated by another instance's commit is read again and judged again.
 */
export function heldAnswer(
  host: SessionHost | undefined,
  interaction_id: string,
): InteractionWithMessage | undefined {
  if (!host?.ownsTurn) return undefined;
  const hand_over = host.context.waiters.handOverOf(interaction_id);
  const message = hand_over && host.writer.committed(hand_over.message_id);
  if (!message) return undefined;
  const found = locateInteraction(message, interaction_id);
  if (!found) return undefined;
  const { part, ordinal, interaction } = found;
  const { session_id } = host;
  const { message_id } = message;
  const { tool_call_id, tool_name } = part;
  return { record: { session_id, message_id, tool_call_id, tool_name, ordinal, interaction }, message };
}
