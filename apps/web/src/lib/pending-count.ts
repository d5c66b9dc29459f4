import type { AdminInboxItem, AdminInteractionEvent, AdminInteractionsPage } from "./parley-api";

/**
 * The interactions an admin's header counts: the keys (session and interaction id: an id is unique
 * only within its session) of one page of pending ones, and whether more exist beyond it.
 */
export interface PendingKeys {
  keys: readonly string[];
  at_least: boolean;
}

function keyOf(session_id: string, interaction_id: string): string {
  return `${session_id}\u0000${interaction_id}`;
}

/** The pending keys of one page of `adminInteractions({ status: "pending" })`. */
export function pendingKeysOf(page: AdminInteractionsPage): PendingKeys {
  return {
    keys: page.items.map((item: AdminInboxItem) => keyOf(item.session_id, item.interaction.interaction_id)),
    at_least: page.next_cursor !== null,
  };
}

/**
 * The count with one feed event laid over it, at once (the page is re-read after it, which takes a
 * round trip): a request that is pending is counted, one that is not any more is not. Keys make it
 * idempotent: an event the page read already holds changes nothing.
 */
export function withInteractionEvent(count: PendingKeys, event: AdminInteractionEvent): PendingKeys {
  const key = keyOf(event.session_id, event.interaction.interaction_id);
  const pending = event.interaction.status === "pending";
  const counted = count.keys.includes(key);
  if (pending === counted) return count;
  return {
    keys: pending ? [...count.keys, key] : count.keys.filter((existing) => existing !== key),
    at_least: count.at_least,
  };
}
