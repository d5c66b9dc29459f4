import { describe, expect, it } from "vitest";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "../testing/fixtures.js";
import { runSessionStoreConformance } from "../testing/session-store-conformance.js";
import { InMemorySessionStore } from "./in-memory-session-store.js";
import { InMemoryLeaseRegistry } from "./in-memory-turn-lease.js";

runSessionStoreConformance("InMemorySessionStore", async () => {
  const store = new InMemorySessionStore();
  return {
    store,
    setLeaseEpoch: (session_id, epoch) => store.setLeaseEpoch(session_id, epoch),
    leases: new InMemoryLeaseRegistry({ epochs: store }).forProcess("conformance"),
    cleanup: async () => {},
  };
});

describe("InMemorySessionStore failure injection", () => {
  async function storeWithSession() {
    const store = new InMemorySessionStore();
    await store.createSession(buildSessionRecord({ session_id: "session:a" }));
    return store;
  }
  const message = (sequence: number) =>
    buildUserMessage({ session_id: "session:a", message_id: `message:${sequence}`, sequence });

  it("fails the next commit with the given error, writes nothing, then recovers", async () => {
    const store = await storeWithSession();
    const failure = new Error("disk full");
    const injection = store.failNextCommit(failure);
    await expect(store.commit(messageCommitOf(message(1)))).rejects.toBe(failure);
    expect(injection.hits).toBe(1);
    expect(await store.getMessage("session:a", "message:1")).toBeNull();
    expect(await store.listEvents("session:a", 0, 10)).toEqual([]);
    const retried = await store.commit(messageCommitOf(message(1)));
    expect(retried.event?.event_id).toBe(1);
  });

  it("fails only commits that match, as many times as asked, until removed", async () => {
    const store = await storeWithSession();
    const injection = store.injectCommitFailure({
      error: new Error("write failed"),
      match: (commit) => commit.message?.snapshot.sequence === 2,
    });
    await store.commit(messageCommitOf(message(1)));
    await expect(store.commit(messageCommitOf(message(2)))).rejects.toThrow("write failed");
    await expect(store.commit(messageCommitOf(message(2)))).rejects.toThrow("write failed");
    expect(injection.hits).toBe(2);
    injection.remove();
    injection.remove();
    await store.commit(messageCommitOf(message(2)));
    expect(await store.lastSequence("session:a")).toBe(2);
  });

  it("reports epoch 0 for a session that was never leased", async () => {
    const store = await storeWithSession();
    expect(store.leaseEpoch("session:a")).toBe(0);
    await store.commit({ ...messageCommitOf(message(1)), epoch: 0 });
    await store.setLeaseEpoch("session:a", 2);
    expect(store.leaseEpoch("session:a")).toBe(2);
  });
});
