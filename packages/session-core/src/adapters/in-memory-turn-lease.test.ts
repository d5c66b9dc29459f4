import { describe, expect, it } from "vitest";
import { StoreConflictError } from "../errors.js";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "../testing/fixtures.js";
import { InMemorySessionStore } from "./in-memory-session-store.js";
import { InMemoryLeaseRegistry } from "./in-memory-turn-lease.js";

describe("InMemoryLeaseRegistry", () => {
  it("grants a session to one holder at a time, with a growing epoch", async () => {
    const registry = new InMemoryLeaseRegistry();
    const a = registry.forProcess("A");
    const b = registry.forProcess("B");
    const first = await a.acquire("session:1");
    expect(first?.epoch).toBe(1);
    expect(await b.acquire("session:1")).toBeNull();
    expect(await a.acquire("session:1")).toBeNull();
    expect(registry.holderOf("session:1")).toEqual({ process_id: "A", epoch: 1 });
    await first?.release();
    await first?.release();
    expect(first?.lost.aborted).toBe(false);
    const second = await b.acquire("session:1");
    expect(second?.epoch).toBe(2);
    expect((await a.acquire("session:2"))?.epoch).toBe(1);
  });

  it("gives exactly one of concurrent acquirers the lease", async () => {
    const registry = new InMemoryLeaseRegistry({ epochs: new InMemorySessionStore() });
    const managers = ["A", "B", "C", "D"].map((id) => registry.forProcess(id));
    const leases = await Promise.all(managers.map((manager) => manager.acquire("session:1")));
    expect(leases.filter((lease) => lease !== null)).toHaveLength(1);
  });

  it("loses a killed process's leases, refuses it new ones, and lets others take over", async () => {
    const registry = new InMemoryLeaseRegistry();
    const a = registry.forProcess("A");
    const b = registry.forProcess("B");
    const held = await a.acquire("session:1");
    const other = await a.acquire("session:2");
    const unrelated = await b.acquire("session:3");
    registry.killProcess("A");
    expect(held?.lost.aborted).toBe(true);
    expect(other?.lost.aborted).toBe(true);
    expect(held?.lost.reason).toEqual(new Error("process A was killed"));
    expect(unrelated?.lost.aborted).toBe(false);
    expect(registry.isAlive("A")).toBe(false);
    await expect(a.acquire("session:4")).rejects.toThrow("Process A was killed and cannot acquire leases");
    expect((await b.acquire("session:1"))?.epoch).toBe(2);
  });

  it("fences the former holder's commits in the store once another process took over", async () => {
    const store = new InMemorySessionStore();
    await store.createSession(buildSessionRecord({ session_id: "session:1" }));
    const registry = new InMemoryLeaseRegistry({ epochs: store });
    const a = registry.forProcess("A");
    const b = registry.forProcess("B");
    const lease_a = await a.acquire("session:1");
    const message = (sequence: number) =>
      buildUserMessage({ session_id: "session:1", message_id: `message:${sequence}`, sequence });
    await store.commit({ ...messageCommitOf(message(1)), epoch: lease_a?.epoch ?? -1 });

    registry.killProcess("A");
    const lease_b = await b.acquire("session:1");
    expect(store.leaseEpoch("session:1")).toBe(2);
    const fenced = store.commit({ ...messageCommitOf(message(2)), epoch: lease_a?.epoch ?? -1 });
    await expect(fenced).rejects.toBeInstanceOf(StoreConflictError);
    await expect(fenced).rejects.toMatchObject({ kind: "fenced" });
    await store.commit({ ...messageCommitOf(message(2)), epoch: lease_b?.epoch ?? -1 });
    expect(await store.lastSequence("session:1")).toBe(2);
  });

  it("loses one lease without killing its process", async () => {
    const registry = new InMemoryLeaseRegistry();
    const a = registry.forProcess("A");
    const lease = await a.acquire("session:1");
    registry.loseLease("session:1");
    expect(lease?.lost.aborted).toBe(true);
    expect(registry.holderOf("session:1")).toBeNull();
    expect((await a.acquire("session:1"))?.epoch).toBe(2);
  });

  it("hands out no lease when writing the epoch fails", async () => {
    const failure = new Error("epoch write failed");
    const registry = new InMemoryLeaseRegistry({
      epochs: { setLeaseEpoch: async () => Promise.reject(failure) },
    });
    await expect(registry.forProcess("A").acquire("session:1")).rejects.toBe(failure);
    expect(registry.holderOf("session:1")).toBeNull();
  });
});
