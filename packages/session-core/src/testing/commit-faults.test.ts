import { describe, expect, it } from "vitest";
import { InMemorySessionStore } from "../adapters/in-memory-session-store.js";
import { CommitFaults } from "./commit-faults.js";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "./fixtures.js";

describe("CommitFaults: storage write failures around a store", () => {
  async function faultyStore() {
    const inner = new InMemorySessionStore();
    await inner.createSession(buildSessionRecord({ session_id: "session:a" }));
    return { inner, faults: new CommitFaults(inner) };
  }
  const message = (sequence: number) =>
    buildUserMessage({ session_id: "session:a", message_id: `message:${sequence}`, sequence });

  it("fails the next commit with the given error, writes nothing, then recovers", async () => {
    const { inner, faults } = await faultyStore();
    const failure = new Error("disk full");
    const injection = faults.failNextCommit(failure);
    await expect(faults.store.commit(messageCommitOf(message(1)))).rejects.toBe(failure);
    expect(injection.hits).toBe(1);
    expect(await inner.getMessage("session:a", "message:1")).toBeNull();
    expect(await faults.store.listEvents("session:a", 0, 10)).toEqual([]);
    const retried = await faults.store.commit(messageCommitOf(message(1)));
    expect(retried.event?.event_id).toBe(1);
  });

  it("fails only commits that match, as many times as asked, until removed", async () => {
    const { faults } = await faultyStore();
    const injection = faults.inject({
      error: new Error("write failed"),
      match: (commit) => commit.message?.snapshot.sequence === 2,
    });
    await faults.store.commit(messageCommitOf(message(1)));
    await expect(faults.store.commit(messageCommitOf(message(2)))).rejects.toThrow("write failed");
    await expect(faults.store.commit(messageCommitOf(message(2)))).rejects.toThrow("write failed");
    expect(injection.hits).toBe(2);
    injection.remove();
    injection.remove();
    await faults.store.commit(messageCommitOf(message(2)));
    expect(await faults.store.lastSequence("session:a")).toBe(2);
  });

  it("passes every other call through to the wrapped store", async () => {
    const { inner, faults } = await faultyStore();
    faults.inject({ error: new Error("never a read") });
    expect(await faults.store.getSession("session:a")).toEqual(await inner.getSession("session:a"));
    expect(await faults.store.lastSequence("session:a")).toBe(0);
  });
});
