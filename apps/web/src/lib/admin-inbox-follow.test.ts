import { describe, expect, it, vi } from "vitest";
import { followAdminInbox } from "./admin-inbox-follow";
import type { InboxLists } from "./admin-inbox-lists";
import type { AdminInboxItem, AdminInteractionEvent, AdminInteractionsQuery, ParleyApi } from "./parley-api";
import { inboxRow } from "./testing/inbox-rows";

const pendingRow = (id: string) => inboxRow(id, "session:1", 100);

/**
 * An API whose pending list is whatever the test says it is now, whose `admin.onInteraction` the
 * test drives by hand, and whose reads fail while `failing` is set.
 */
function fakeApi() {
  const fake = {
    pending: [] as AdminInboxItem[],
    failing: false,
    reads: 0,
    unsubscribed: false,
    feed: null as null | {
      listener: (event: AdminInteractionEvent) => void;
      onEnded: (error: unknown) => void;
      onStarted: (() => void) | undefined;
    },
  };
  const api: Pick<ParleyApi, "adminInteractions" | "subscribeAdmin"> = {
    adminInteractions: async (query: AdminInteractionsQuery) => {
      fake.reads += 1;
      if (fake.failing) throw Object.assign(new Error("API unreachable"), { code: "unavailable" });
      return { items: query?.status === "pending" ? [...fake.pending] : [], next_cursor: null };
    },
    subscribeAdmin: (listener, onEnded, onStarted) => {
      fake.feed = { listener, onEnded, onStarted };
      return () => {
        fake.unsubscribed = true;
      };
    },
  };
  return { fake, api };
}

function recorder() {
  const seen = { lists: [] as InboxLists[], events: [] as number[], failures: [] as string[] };
  const follower = {
    lists: (lists: InboxLists) => void seen.lists.push(lists),
    event: (event: AdminInteractionEvent) => void seen.events.push(event.event_id),
    failed: (message: string) => void seen.failures.push(message),
  };
  return { seen, follower };
}

const pendingIds = (lists: InboxLists | undefined) =>
  lists?.pending.map((item) => item.interaction.interaction_id);

describe("followAdminInbox", () => {
  it("reads the lists at once and again on each start of the feed, which brings a row the first read missed", async () => {
    const { fake, api } = fakeApi();
    const { seen, follower } = recorder();
    followAdminInbox(api, follower);
    await vi.waitFor(() => expect(seen.lists).toHaveLength(1));
    expect(pendingIds(seen.lists[0])).toEqual([]);

    // Created after the first read and before the feed listened: no event will tell of it.
    fake.pending = [pendingRow("i1")];
    fake.feed?.onStarted?.();
    await vi.waitFor(() => expect(seen.lists).toHaveLength(2));
    expect(pendingIds(seen.lists[1])).toEqual(["i1"]);

    // A reconnect is a start too.
    fake.pending = [pendingRow("i1"), pendingRow("i2")];
    fake.feed?.onStarted?.();
    await vi.waitFor(() => expect(seen.lists).toHaveLength(3));
    expect(pendingIds(seen.lists[2])).toEqual(["i1", "i2"]);
    // Each read is the pending page and the two answered lists.
    expect(fake.reads).toBe(9);
    expect(seen.failures).toEqual([]);
  });

  it("reports a failed first read and an ended feed, but keeps what is shown when a re-read on start fails", async () => {
    const { fake, api } = fakeApi();
    const { seen, follower } = recorder();
    fake.failing = true;
    followAdminInbox(api, follower);
    await vi.waitFor(() => expect(seen.failures).toEqual(["API unreachable"]));

    fake.feed?.onStarted?.();
    await vi.waitFor(() => expect(fake.reads).toBe(6));
    fake.failing = false;
    fake.feed?.onStarted?.();
    await vi.waitFor(() => expect(seen.lists).toHaveLength(1));
    expect(seen.failures).toEqual(["API unreachable"]);

    fake.feed?.onEnded(Object.assign(new Error("not allowed"), { code: "forbidden" }));
    expect(seen.failures).toEqual(["API unreachable", "Live updates stopped: not allowed"]);
  });

  it("passes events on, and after stop unsubscribes and passes nothing on", async () => {
    const { fake, api } = fakeApi();
    const { seen, follower } = recorder();
    const stop = followAdminInbox(api, follower);
    const event: AdminInteractionEvent = {
      event_id: 7,
      kind: "created",
      session_id: "session:1",
      interaction: pendingRow("i1").interaction,
    };
    fake.feed?.listener(event);
    expect(seen.events).toEqual([7]);

    stop();
    expect(fake.unsubscribed).toBe(true);
    fake.feed?.listener({ ...event, event_id: 8 });
    fake.feed?.onStarted?.();
    fake.feed?.onEnded(new Error("gone"));
    // The first read was under way at stop; a start after stop reads nothing. The fake's reads
    // settle on promise jobs alone, so one timer turn lets the first read finish, unheard.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(fake.reads).toBe(3);
    expect(seen).toEqual({ lists: [], events: [7], failures: [] });
  });
});
