import { describe, expect, it } from "vitest";
import { type OutboxItem, outboxReducer, releasable } from "./outbox";

const add = (local_id: string, text: string, hold: boolean) =>
  ({ type: "add", item: { local_id, request_id: `req-${local_id}`, text }, hold }) as const;

describe("outbox", () => {
  it("holds messages while offline and releases them, oldest first, once online", () => {
    let items: readonly OutboxItem[] = [];
    items = outboxReducer(items, add("a", "first", true));
    items = outboxReducer(items, add("b", "second", true));
    expect(items.map((item) => item.status)).toEqual(["held", "held"]);
    expect(releasable(items, false)).toEqual([]);
    expect(releasable(items, true).map((item) => item.local_id)).toEqual(["a", "b"]);
  });

  it("cancels a held message and drops a sending one when its user message is delivered", () => {
    let items: readonly OutboxItem[] = [];
    items = outboxReducer(items, add("a", "same", false));
    items = outboxReducer(items, add("b", "same", false));
    items = outboxReducer(items, add("c", "held", true));
    items = outboxReducer(items, { type: "cancel", local_id: "c" });
    items = outboxReducer(items, { type: "delivered", texts: ["same"] });
    expect(items.map((item) => item.local_id)).toEqual(["b"]);
    items = outboxReducer(items, { type: "failed", local_id: "b", error: "Failed to fetch" });
    expect(items).toEqual([
      { local_id: "b", request_id: "req-b", text: "same", status: "failed", error: "Failed to fetch" },
    ]);
    items = outboxReducer(items, { type: "delivered", texts: ["same"] });
    expect(items).toHaveLength(1);
    items = outboxReducer(items, { type: "sending", local_id: "b" });
    expect(items[0]?.status).toBe("sending");
    items = outboxReducer(items, { type: "sent", local_id: "b" });
    expect(items).toEqual([]);
  });
});
