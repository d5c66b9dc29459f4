import type { Interaction } from "@parley/sdk";
import type { AdminInboxItem } from "../parley-api";

/** A pending approval of `tool` (unless `fields` say otherwise), as the inbox lists it. */
export function inboxInteraction(
  id: string,
  fields: Partial<Interaction> = {},
  tool = "delete_file",
  created_at = 100,
): Interaction {
  return {
    interaction_id: id,
    interaction_type: "approval",
    status: "pending",
    request: {
      interaction_id: id,
      turn_id: "turn:1",
      type: "approval",
      source: { type: "tool", tool_call_id: `call:${id}`, tool_name: tool },
      payload: { operation: "tool" },
      created_at,
    },
    ...fields,
  };
}

/** An inbox row of session `session_id` holding `inboxInteraction(id, fields)`. */
export function inboxRow(
  id: string,
  session_id: string,
  created_at: number,
  fields: Partial<Interaction> = {},
): AdminInboxItem {
  const value = inboxInteraction(id, fields, "delete_file", created_at);
  return {
    interaction: value,
    session_id,
    session_title: `Title ${session_id}`,
    owner_id: "user:m",
    owner_name: "Mia",
    tool_name: "delete_file",
    tool_call_id: `call:${id}`,
    created_at,
  };
}
