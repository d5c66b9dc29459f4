import { type SessionEvent, StoreConflictError } from "@parley/session-core";
import {
  buildInteraction,
  buildSessionRecord,
  buildUserMessage,
  messageCommitOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../prisma-client.js";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { decodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";
import { PostgresEventBus } from "./postgres-event-bus.js";

const CHANNEL = "parley_events";

let database: TestDatabase;
let pool: pg.Pool;
/** Announces nothing itself: its events get the bus's notice after the commit. */
let plainStore: PrismaSessionStore;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
  plainStore = new PrismaSessionStore(createPrismaClient(pool));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** One process: a NOTIFY bus and a store that sends its notices inside its commits. */
async function startProcess() {
  const processPool = new pg.Pool({ connectionString: database.url, max: 3 });
  const bus = new PostgresEventBus({ pool: processPool, url: database.url, channel: CHANNEL });
  await bus.start();
  const store = new PrismaSessionStore(createPrismaClient(processPool), { notices: bus.commitNotices });
  cleanups.push(async () => {
    await bus.close();
    await processPool.end();
  });
  const seen: SessionEvent[] = [];
  bus.subscribe({ onSessionEvent: (event) => seen.push(event) });
  return { bus, store, seen };
}

/** Every notice on the channel, in the order Postgres delivered them (commit order). */
async function listenRaw(): Promise<NotifyPayload[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const heard: NotifyPayload[] = [];
  client.on("notification", (message) => {
    const notice = decodeNotifyPayload(message.payload);
    if (notice) heard.push(notice);
  });
  await client.query(`LISTEN ${CHANNEL}`);
  cleanups.push(() => client.end());
  return heard;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A later notice of the same session, sent by a bus through its own NOTIFY after the test's commits:
 * once it is heard, every notice committed before it has been heard too (NOTIFY keeps commit order).
 */
async function sentinel(session_id: string, sequence: number, heard: NotifyPayload[]): Promise<void> {
  const sender = await startProcess();
  const result = await plainStore.commit(
    messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
  );
  if (!result.event) throw new Error("the sentinel commit produced no event");
  await sender.bus.publish({ session_events: [result.event], interaction_events: [] });
  const last = result.event.event_id;
  await until(() => heard.some((notice) => notice.kind === "session" && notice.last === last));
}

describe("notices sent inside the commit (NOTIFY bus with its store)", () => {
  it("another process hears a revision from its commit alone; the writer's publish delivers locally and sends no second notice", async () => {
    const heard = await listenRaw();
    const writer = await startProcess();
    const reader = await startProcess();
    const session_id = "session:in-commit";
    await writer.store.createSession(buildSessionRecord({ session_id }));
    const result = await writer.store.commit(
      messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 })),
    );
    const event = result.event;
    if (!event) throw new Error("the commit produced no event");
    // Nobody published yet: the reader hears it through the NOTIFY the commit sent.
    await until(() => reader.seen.length >= 1);
    expect(reader.seen).toStrictEqual([event]);

    await writer.bus.publish({ session_events: [event], interaction_events: [] });
    expect(writer.seen).toStrictEqual([event]);
    await sentinel(session_id, 2, heard);
    expect(heard).toEqual([
      { kind: "session", session_id, first: 1, last: 1 },
      { kind: "session", session_id, first: 2, last: 2 },
    ]);
    await until(() => reader.seen.length >= 2);
    expect(reader.seen.map((item) => item.event_id)).toEqual([1, 2]);
  });

  it("announces the admin feed with its highest id, in the same commit", async () => {
    const heard = await listenRaw();
    const writer = await startProcess();
    const session_id = "session:in-commit-feed";
    await writer.store.createSession(buildSessionRecord({ session_id }));
    const interaction = buildInteraction({ interaction_id: "interaction:in-commit", tool_call_id: "call_1" });
    const result = await writer.store.commit({
      session_id,
      interaction_events: [
        { kind: "created", session_id, interaction },
        { kind: "cancelled", session_id, interaction: { ...interaction, status: "cancelled" } },
      ],
    });
    const last = result.interaction_events.at(-1)?.event_id;
    await writer.bus.publish({ session_events: [], interaction_events: result.interaction_events });
    await sentinel(session_id, 1, heard);
    expect(heard).toEqual([
      { kind: "interaction", last },
      { kind: "session", session_id, first: 1, last: 1 },
    ]);
  });

  it("a rejected revision announces nothing", async () => {
    const heard = await listenRaw();
    const writer = await startProcess();
    const session_id = "session:in-commit-fenced";
    await writer.store.createSession(buildSessionRecord({ session_id }));
    const fenced = writer.store.commit(
      messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 }), { epoch: 7 }),
    );
    await expect(fenced).rejects.toBeInstanceOf(StoreConflictError);
    await sentinel(session_id, 1, heard);
    expect(heard).toEqual([{ kind: "session", session_id, first: 1, last: 1 }]);
  });

  it("a revision that ends a Turn (its own transaction) announces at that transaction's commit", async () => {
    const heard = await listenRaw();
    const writer = await startProcess();
    const reader = await startProcess();
    const session_id = "session:in-commit-transaction";
    await writer.store.createSession(buildSessionRecord({ session_id }));
    const result = await writer.store.commit(
      messageCommitOf(buildUserMessage({ session_id, message_id: "message:1", sequence: 1 }), {
        ends_turn: { turn_id: "turn:none", cancel_queued_prompts: true },
      }),
    );
    await until(() => reader.seen.length >= 1);
    expect(reader.seen).toStrictEqual(result.event ? [result.event] : []);
    await sentinel(session_id, 2, heard);
    expect(heard).toEqual([
      { kind: "session", session_id, first: 1, last: 1 },
      { kind: "session", session_id, first: 2, last: 2 },
    ]);
  });
});
