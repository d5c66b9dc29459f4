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

describe("InMemorySessionStore epochs", () => {
  it("reports epoch 0 for a session that was never leased", async () => {
    const store = new InMemorySessionStore();
    await store.createSession(buildSessionRecord({ session_id: "session:a" }));
    expect(store.leaseEpoch("session:a")).toBe(0);
    await store.commit({
      ...messageCommitOf(buildUserMessage({ session_id: "session:a", message_id: "message:1", sequence: 1 })),
      epoch: 0,
    });
    await store.setLeaseEpoch("session:a", 2);
    expect(store.leaseEpoch("session:a")).toBe(2);
  });
});
