import type { SessionMutation } from "../schema/mutation.js";

/**
 * A mutation with each part it carries replaced by the part's id: the form in which the replay log
 * references parts (DESIGN §10.6). A mutation received live and the same event read again later
 * agree on it, whatever a later revision did to those parts since.
 */
export function withPartIds(mutation: SessionMutation): unknown {
  if (mutation.variant === "part") return { ...mutation, part: mutation.part.part_id };
  if (mutation.variant === "message" && mutation.message.type === "assistant") {
    const parts = mutation.message.parts.map((part) => part.part_id);
    return { ...mutation, message: { ...mutation.message, parts } };
  }
  return mutation;
}
