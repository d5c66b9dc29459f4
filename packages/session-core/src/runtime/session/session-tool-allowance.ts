import type { SessionStore } from "../../ports/session-store.js";
import type { Interaction } from "../../schema/interaction.js";

/** Pages of resolved approvals one check reads at most (a session rarely answers this many). */
const MAX_PAGES = 20;
const PAGE_SIZE = 200;

/**
 * "Allow for this session", scoped to one tool: an approval answered
 * `{ decision: "approved", scope: "session" }` lets later calls of the same tool in the same session
 * run without asking. It lives in the answered Interactions themselves (no other state), so it
 * survives restarts and is visible in the audit trail with `responded_by`.
 */
export function allowsToolForSession(interaction: Interaction): boolean {
  const payload = interaction.response?.payload;
  return (
    interaction.interaction_type === "approval" &&
    interaction.status === "resolved" &&
    typeof payload === "object" &&
    payload !== null &&
    !Array.isArray(payload) &&
    payload.decision === "approved" &&
    payload.scope === "session"
  );
}

export async function isToolAllowedForSession(
  store: SessionStore,
  session_id: string,
  tool_name: string,
): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await store.queryInteractions({
      session_id,
      tool_name,
      type: "approval",
      status: "resolved",
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (result.items.some((record) => allowsToolForSession(record.interaction))) return true;
    if (result.next_cursor === null) return false;
    cursor = result.next_cursor;
  }
  return false;
}
