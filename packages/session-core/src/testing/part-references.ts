import type { SessionMutation } from "../schema/mutation.js";

/**
 * A mutation with the part or message it carries replaced by its id: the form in which the replay
 * log references them (DESIGN §10.6). A mutation received live and the same event read again later
 * agree on it, whatever a later revision did to that part or message since.
 */
export function withReferences(mutation: SessionMutation): unknown {
  if (mutation.variant === "part") return { ...mutation, part: mutation.part.part_id };
  if (mutation.variant === "message") return { ...mutation, message: mutation.message.message_id };
  return mutation;
}
