import { isLiveMutation, type SessionMutation } from "@parley/session-core";
import { withReferences } from "@parley/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { turnLeaseHolder } from "../leases/turn-lease-holder.js";
import { consecutiveFromOne, MultiProcessFixture } from "../test-support/multi-process-fixture.js";
import { TEST_BUS_KINDS } from "../testing/test-bus.js";

let fixture: MultiProcessFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

/**
 * The durable mutations a worker's subscriber received; live ones (DESIGN §10.6) are best effort,
 * never replayed, and not in the log these are compared with.
 */
function durableSeenBy(worker: { mutations: Map<string, SessionMutation[]> }, session_id: string): unknown[] {
  return (worker.mutations.get(session_id) ?? [])
    .filter((mutation) => !isLiveMutation(mutation))
    .map(withReferences);
}

/** How often the workers run recovery, as the API does, so takeover needs no external trigger. */
const RECOVER_EVERY_MS = 300;

// Each forked worker compiles its sources with tsx at start (seconds on a busy machine).
describe.each(TEST_BUS_KINDS)("two processes on one database (bus: %s)", { timeout: 240_000 }, (bus) => {
  // The live-waiter variant (parking off): A holds its waiting Turn, so B's answer reaches A's tool.
  it("variant: parking off — prompt in A, respond in B: A resumes; B's subscriber sees every mutation once, in order; after A dies B takes over", async () => {
    fixture = await MultiProcessFixture.create(bus);
    const [a, b] = await Promise.all([
      fixture.startWorker("A", { recover_every_ms: RECOVER_EVERY_MS, park_waiting_turns: false }),
      fixture.startWorker("B", { recover_every_ms: RECOVER_EVERY_MS, park_waiting_turns: false }),
    ]);
    const session_id = await a.createSession();
    await b.subscribe(session_id);

    const first_turn = await a.prompt(session_id, "note-1");
    const first = await fixture.pendingInteraction(session_id);
    expect(await b.respond(session_id, first.interaction.interaction_id)).toMatchObject({
      status: "resolved",
    });
    expect(await a.turnFinished(first_turn)).toMatchObject({ success: true, text: "done note-1" });
    expect(await fixture.effects()).toEqual(["note-1 by A"]);

    const afterFirst = await fixture.events(session_id);
    expect(afterFirst.map((event) => event.event_id)).toEqual(consecutiveFromOne(afterFirst));
    await fixture.eventually(async () => durableSeenBy(b, session_id).length >= afterFirst.length);
    expect(durableSeenBy(b, session_id)).toStrictEqual(
      afterFirst.map((event) => withReferences(event.mutation)),
    );

    const second_turn = await a.prompt(session_id, "note-2");
    const { store } = fixture;
    const second = await fixture.eventually(async () =>
      (await store.listPendingInteractions(session_id)).find((row) => row.tool_call_id === "call_note-2"),
    );
    await a.kill();
    expect(await b.respond(session_id, second.interaction.interaction_id)).toMatchObject({
      status: "resolved",
    });
    expect(await fixture.turnFinish(session_id, second_turn)).toMatchObject({
      status: "completed",
      text: "done note-2",
    });
    expect(await fixture.effects()).toEqual(["note-1 by A", "note-2 by B"]);

    const all = await fixture.events(session_id);
    expect(all.map((event) => event.event_id)).toEqual(consecutiveFromOne(all));
    await fixture.eventually(async () => durableSeenBy(b, session_id).length >= all.length);
    expect(durableSeenBy(b, session_id)).toStrictEqual(all.map((event) => withReferences(event.mutation)));
    // B took the dead owner's lease (A's lock died with its connection) and released it when the
    // Turn ended: no backend holds the session's advisory lock.
    const { pool } = fixture;
    await fixture.eventually(async () => (await turnLeaseHolder(pool, session_id)) === null);
  });

  it("50 concurrent responds to one interaction across two processes: exactly one succeeds", async () => {
    fixture = await MultiProcessFixture.create(bus);
    const [a, b] = await Promise.all([fixture.startWorker("A"), fixture.startWorker("B")]);
    const session_id = await a.createSession();
    const turn_id = await a.prompt(session_id, "note-race");
    const pending = await fixture.pendingInteraction(session_id);
    const interaction_id = pending.interaction.interaction_id;

    const [fromA, fromB] = await Promise.all([
      a.respondMany(session_id, interaction_id, 25),
      b.respondMany(session_id, interaction_id, 25),
    ]);
    const outcomes = [...fromA, ...fromB];
    expect(outcomes).toHaveLength(50);
    expect(outcomes.filter((outcome) => outcome.ok)).toEqual([{ ok: true, status: "resolved" }]);
    const losers = outcomes.filter((outcome) => !outcome.ok);
    expect(losers).toHaveLength(49);
    expect(new Set(losers.map((outcome) => (outcome.ok ? "" : outcome.code)))).toEqual(
      new Set(["interaction_not_pending"]),
    );

    // Exactly one side effect. Normally by A, which holds the Turn; but this case loads both
    // processes with 50 calls, and a heartbeat that misses its deadline gives A's lease up, after
    // which B (that committed the answer) takes the Turn over, as it should. Which process runs the
    // tool is the first case's subject, not this one's.
    expect(await fixture.turnFinish(session_id, turn_id)).toMatchObject({ status: "completed" });
    const effects = await fixture.effects();
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatch(/^note-race by [AB]$/);
    const feed = await fixture.store.listInteractionEvents(0, 100);
    expect(feed.map((event) => [event.kind, event.interaction.interaction_id])).toEqual([
      ["created", interaction_id],
      ["resolved", interaction_id],
    ]);
  });
});
