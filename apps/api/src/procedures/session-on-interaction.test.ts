import { createParleyClient, type InteractionFeedEvent, type ParleyClient } from "@parley/sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type InMemoryApi, startInMemoryApi } from "../testing/in-memory-api.js";

/**
 * `session.onInteraction` over the in-memory server: which sessions' events a member's feed keeps,
 * and that it asks the store about each session once for the feed's life, not once per event.
 */
describe("session.onInteraction", () => {
  let api: InMemoryApi;
  const clients: ParleyClient[] = [];

  async function clientOf(name: string): Promise<ParleyClient> {
    const user = await api.addUser(name, "member");
    const client = createParleyClient({ url: api.server.url, token: user.token });
    clients.push(client);
    return client;
  }

  beforeEach(async () => {
    api = await startInMemoryApi();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await api.close();
  });

  it("replays only the caller's sessions' events, reading each session's owner once", async () => {
    const [alice, bob] = await Promise.all([clientOf("alice"), clientOf("bob")]);
    const approve = () =>
      ({ type: "approval", outcome: "resolved", payload: { decision: "approved" } }) as const;
    const mine = await alice.sessions.create({ title: "mine" });
    const theirs = await bob.sessions.create({ title: "theirs" });
    for (const name of ["a", "b", "c"]) {
      expect((await mine.run(`write ${name}.txt: x`, { onInteraction: approve })).status).toBe("completed");
    }
    expect((await theirs.run("write d.txt: x", { onInteraction: approve })).status).toBe("completed");

    const reads = vi.spyOn(api.services.store, "getSession");
    const events: InteractionFeedEvent[] = [];
    let started = false;
    const stop = alice.sessions.subscribeInteractions((event) => void events.push(event), {
      after_event_id: 0,
      onStarted: () => {
        started = true;
      },
    });
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 5_000 });
    stop();

    expect(events.map((event) => [event.kind, event.session_id])).toEqual([
      ["created", mine.id],
      ["resolved", mine.id],
      ["created", mine.id],
      ["resolved", mine.id],
      ["created", mine.id],
      ["resolved", mine.id],
    ]);
    const asked = reads.mock.calls.map(([session_id]) => session_id).sort();
    expect(asked).toEqual([mine.id, theirs.id].sort());
  });
});
