import { describe, expect, it } from "vitest";
import type { AdminInteractionEvent } from "./parley-api";
import { pendingKeysOf, withInteractionEvent } from "./pending-count";
import { inboxInteraction, inboxRow } from "./testing/inbox-rows";

function event(
  kind: AdminInteractionEvent["kind"],
  session_id: string,
  id: string,
  status: "pending" | "resolved" | "denied" | "cancelled",
): AdminInteractionEvent {
  return { event_id: 1, kind, session_id, interaction: inboxInteraction(id, { status }) };
}

describe("the admin header's pending count", () => {
  const page = {
    items: [inboxRow("i1", "session:1", 100), inboxRow("i2", "session:1", 101)],
    next_cursor: "cursor:2",
  };

  it("counts a page's rows and says when more exist", () => {
    expect(pendingKeysOf(page).keys).toHaveLength(2);
    expect(pendingKeysOf(page).at_least).toBe(true);
    expect(pendingKeysOf({ items: [], next_cursor: null })).toEqual({ keys: [], at_least: false });
  });

  it("counts a new request at once, and only once however often its event comes", () => {
    const once = withInteractionEvent(pendingKeysOf(page), event("created", "session:2", "i3", "pending"));
    expect(once.keys).toHaveLength(3);
    expect(withInteractionEvent(once, event("created", "session:2", "i3", "pending"))).toBe(once);
    expect(once.at_least).toBe(true);
  });

  it("keys by session: the same interaction id in another session is another request", () => {
    const counted = withInteractionEvent(pendingKeysOf(page), event("created", "session:2", "i1", "pending"));
    expect(counted.keys).toHaveLength(3);
  });

  it("stops counting a request that is answered or cancelled, and ignores one it never counted", () => {
    const count = pendingKeysOf(page);
    expect(withInteractionEvent(count, event("resolved", "session:1", "i1", "resolved")).keys).toHaveLength(
      1,
    );
    expect(withInteractionEvent(count, event("cancelled", "session:1", "i2", "cancelled")).keys).toHaveLength(
      1,
    );
    expect(withInteractionEvent(count, event("denied", "session:9", "i1", "denied"))).toBe(count);
  });
});
