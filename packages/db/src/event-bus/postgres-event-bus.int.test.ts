import type { InteractionEvent, SessionEvent } from "@parley/session-core";
import {
  buildInteraction,
  buildSessionRecord,
  buildUserMessage,
  messageCommitOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PostgresEventBus } from "./postgres-event-bus.js";

let database: TestDatabase;
let pool: pg.Pool;
let store: PrismaSessionStore;
const buses: PostgresEventBus[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 8 });
  store = new PrismaSessionStore(pool);
});
afterEach(async () => {
  for (const bus of buses.splice(0)) await bus.close();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** A bus with its own pool and LISTEN connection: what another process would have. */
async function startBus(options: { heartbeatIntervalMs?: number } = {}): Promise<PostgresEventBus> {
  const busPool = new pg.Pool({ connectionString: database.url, max: 2 });
  const bus = new PostgresEventBus({ pool: busPool, url: database.url, ...options });
  const close = bus.close.bind(bus);
  bus.close = async () => {
    await close();
    await busPool.end();
  };
  await bus.start();
  buses.push(bus);
  return bus;
}

function record(bus: PostgresEventBus) {
  const session: SessionEvent[] = [];
  const interaction: InteractionEvent[] = [];
  bus.subscribe({
    onSessionEvent: (event) => session.push(event),
    onInteractionEvent: (event) => interaction.push(event),
  });
  return { session, interaction };
}

/** Commits `count` user messages to a new session; returns their events (not yet published). */
async function commitMessages(session_id: string, count: number, from = 1): Promise<SessionEvent[]> {
  if (from === 1) await store.createSession(buildSessionRecord({ session_id }));
  const events: SessionEvent[] = [];
  for (let sequence = from; sequence < from + count; sequence += 1) {
    const result = await store.commit(
      messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
    );
    if (result.event) events.push(result.event);
  }
  return events;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const ids = (events: SessionEvent[]) => events.map((event) => `${event.session_id}#${event.event_id}`);

describe("PostgresEventBus", () => {
  it("delivers a publish to the local subscribers before resolving and to another bus through NOTIFY, once each", async () => {
    const a = await startBus();
    const b = await startBus();
    const seenByA = record(a);
    const seenByB = record(b);
    const events = await commitMessages("session:one", 3);
    await a.publish({ session_events: events, interaction_events: [] });
    expect(ids(seenByA.session)).toEqual(["session:one#1", "session:one#2", "session:one#3"]);
    await until(() => seenByB.session.length >= 3);
    expect(seenByB.session).toStrictEqual(events);

    const more = await commitMessages("session:one", 1, 4);
    await b.publish({ session_events: more, interaction_events: [] });
    await until(() => seenByA.session.length >= 4);
    // Own notices come back to each bus; they must not be delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ids(seenByA.session)).toEqual(ids([...events, ...more]));
    expect(ids(seenByB.session)).toEqual(ids([...events, ...more]));
  });

  it("reads skipped ids from the replay log, so each session's events arrive in order and complete", async () => {
    const a = await startBus();
    const b = await startBus();
    const seenByB = record(b);
    const first = await commitMessages("session:gap", 1);
    await a.publish({ session_events: first, interaction_events: [] });
    await until(() => seenByB.session.length >= 1);
    const skipped = await commitMessages("session:gap", 3, 2);
    // Published out of order and with the middle ones missing, as two racing processes could.
    await a.publish({ session_events: skipped.slice(2), interaction_events: [] });
    await a.publish({ session_events: skipped.slice(0, 1), interaction_events: [] });
    await until(() => seenByB.session.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ids(seenByB.session)).toEqual([
      "session:gap#1",
      "session:gap#2",
      "session:gap#3",
      "session:gap#4",
    ]);
    expect(seenByB.session.map((event) => event.mutation.mutation_id)).toEqual(
      [...first, ...skipped].map((event) => event.mutation.mutation_id),
    );
  });

  it("carries admin-feed events across processes in id order", async () => {
    const a = await startBus();
    const b = await startBus();
    const seenByB = record(b);
    await store.createSession(buildSessionRecord({ session_id: "session:feed" }));
    const interaction = buildInteraction({ interaction_id: "interaction:feed", tool_call_id: "call_feed" });
    const result = await store.commit({
      session_id: "session:feed",
      interaction_events: [
        { kind: "created", session_id: "session:feed", interaction },
        {
          kind: "cancelled",
          session_id: "session:feed",
          interaction: { ...interaction, status: "cancelled" },
        },
      ],
    });
    await a.publish({ session_events: [], interaction_events: result.interaction_events });
    await until(() => seenByB.interaction.length >= 2);
    expect(seenByB.interaction).toStrictEqual(result.interaction_events);
  });

  it("after losing its LISTEN connection, reads the events whose notices it could have missed", async () => {
    const a = await startBus();
    const b = await startBus();
    const seenByB = record(b);
    const before = await commitMessages("session:reconnect", 1);
    await a.publish({ session_events: before, interaction_events: [] });
    await until(() => seenByB.session.length >= 1);
    // Committed but never announced: only the catch-up after the reconnection can deliver them.
    await commitMessages("session:reconnect", 2, 2);
    await b.simulateConnectionLoss();
    await until(() => seenByB.session.length >= 3);
    expect(ids(seenByB.session)).toEqual([
      "session:reconnect#1",
      "session:reconnect#2",
      "session:reconnect#3",
    ]);
  });

  it("replaces a LISTEN connection that stops hearing without failing, then reads what it missed", async () => {
    const a = await startBus();
    const b = await startBus({ heartbeatIntervalMs: 200 });
    const seenByB = record(b);
    let resyncs = 0;
    b.subscribe({ onResync: () => (resyncs += 1) });
    const before = await commitMessages("session:silent", 1);
    await a.publish({ session_events: before, interaction_events: [] });
    await until(() => seenByB.session.length >= 1);
    // No error, no end event: only the heartbeat can tell that this connection hears nothing.
    b.simulateSilentDeath();
    const during = await commitMessages("session:silent", 2, 2);
    await a.publish({ session_events: during, interaction_events: [] });
    await until(() => seenByB.session.length >= 3 && resyncs >= 1);
    expect(ids(seenByB.session)).toEqual(["session:silent#1", "session:silent#2", "session:silent#3"]);
    const after = await commitMessages("session:silent", 1, 4);
    await a.publish({ session_events: after, interaction_events: [] });
    await until(() => seenByB.session.length >= 4);
    expect(seenByB.session).toStrictEqual([...before, ...during, ...after]);
  });

  it("keeps delivering to the other listeners when one throws", async () => {
    const a = await startBus();
    a.subscribe({
      onSessionEvent: () => {
        throw new Error("listener bug");
      },
    });
    const seen = record(a);
    const events = await commitMessages("session:throws", 2);
    await a.publish({ session_events: events, interaction_events: [] });
    expect(ids(seen.session)).toEqual(["session:throws#1", "session:throws#2"]);
  });

  it("stops delivering to an unsubscribed listener", async () => {
    const a = await startBus();
    const received: number[] = [];
    const unsubscribe = a.subscribe({ onSessionEvent: (event) => received.push(event.event_id) });
    const events = await commitMessages("session:unsubscribe", 2);
    await a.publish({ session_events: events.slice(0, 1), interaction_events: [] });
    unsubscribe();
    await a.publish({ session_events: events.slice(1), interaction_events: [] });
    expect(received).toEqual([1]);
  });
});
