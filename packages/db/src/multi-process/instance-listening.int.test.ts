import type { Session, SessionRuntime } from "@parley/session-core";
import { createApprovalTool, createScriptedModel } from "@parley/session-core/testing";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { startInProcessInstances } from "../test-support/in-process-instances.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";

// Two instances on one database (each its own pool and LISTEN connection, as two API processes).
// Every commit is noticed by both; a bus reads the events of a notice only for a session one of its
// listeners follows. The runtime follows the sessions it holds, not every session: an instance that
// holds nothing of a session reads none of its commits.

const AGENT_ID = "agent:listening";
const SESSION_EVENTS_READ = /FROM session_events s/;

let database: TestDatabase | undefined;
let closeInstances: (() => Promise<void>) | undefined;
const originalQuery = pg.Pool.prototype.query;

afterEach(async () => {
  pg.Pool.prototype.query = originalQuery;
  await closeInstances?.();
  closeInstances = undefined;
  await database?.drop();
  database = undefined;
});

/** Counts the session-event reads each pool runs from now on, by the session they read. */
function countEventReads(): { of(pool: pg.Pool, session_id: string): number } {
  const reads = new Map<pg.Pool, Map<string, number>>();
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === "string" ? first : (first as { text?: string } | undefined)?.text;
    const values =
      (Array.isArray(second) ? second : (first as { values?: unknown[] } | undefined)?.values) ?? [];
    if (text !== undefined && SESSION_EVENTS_READ.test(text)) {
      const bySession = reads.get(this) ?? new Map<string, number>();
      reads.set(this, bySession);
      for (const value of values) {
        if (typeof value === "string") bySession.set(value, (bySession.get(value) ?? 0) + 1);
      }
    }
    return (originalQuery as (...inner: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Pool.prototype.query;
  return { of: (pool, session_id) => reads.get(pool)?.get(session_id) ?? 0 };
}

async function twoInstances() {
  database = await createTestDatabase();
  const approval = createApprovalTool();
  const model = createScriptedModel([
    [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "notes.txt" } } }],
    [{ text: "deleted" }],
  ]);
  const started = await startInProcessInstances(database.url, ["A", "B"], {
    agent: { agent_id: AGENT_ID, model, tools: { delete_file: approval.tool } },
  });
  closeInstances = started.close;
  const [a, b] = started.instances.map((instance) => instance.composed.runtime) as [
    SessionRuntime,
    SessionRuntime,
  ];
  const poolB = started.instances[1]?.database.pool;
  if (!poolB) throw new Error("no instance B");
  return { a, b, poolB, effects: approval.effects };
}

/** Follows `session` from its start; `titled(title)` resolves once its rename to `title` arrived. */
function follow(session: Session) {
  const titles: string[] = [];
  const unsubscribe = session.subscribe(
    (mutation) => {
      if (mutation.variant === "session" && mutation.type === "title" && mutation.title)
        titles.push(mutation.title);
    },
    { after_event_id: 0 },
  );
  return {
    unsubscribe,
    titled: (title: string) =>
      waitFor(
        async () => titles,
        (seen) => seen.includes(title),
      ),
  };
}

it("an instance that holds nothing of a session reads none of its commits; one that follows it reads them", async () => {
  const { a, b, poolB, effects } = await twoInstances();
  const reads = countEventReads();
  // A session B follows: a commit in it, seen on B, is a point after which B has handled every
  // notice sent before it (notices reach a LISTEN connection in commit order).
  const marker = await a.createSession({ owner_id: "user:owner", agent_id: AGENT_ID });
  const markerOnB = await b.openSession(marker.id);
  if (!markerOnB) throw new Error("marker session not found on B");
  const markerSeenOnB = follow(markerOnB);

  // A runs a Turn to its approval and through it: B holds nothing of this session.
  const session = await a.createSession({ owner_id: "user:owner", agent_id: AGENT_ID });
  const turn = await session.prompt({ query: "delete notes.txt" });
  const [pending] = await waitFor(
    () => session.interactions(),
    (list) => list.length === 1,
  );
  if (!pending) throw new Error("no pending interaction");
  await session.respond({
    interaction_id: pending.interaction_id,
    response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
  });
  expect(await turn.finished).toMatchObject({ success: true, text: "deleted" });
  expect(effects).toEqual(["notes.txt"]);
  await marker.rename("marker, after the Turn");
  await markerSeenOnB.titled("marker, after the Turn");
  expect(reads.of(poolB, session.id)).toBe(0);
  expect(reads.of(poolB, marker.id)).toBeGreaterThan(0);

  // A subscriber on B follows the session: B now reads A's commits of it to deliver them.
  const onB = await b.openSession(session.id);
  if (!onB) throw new Error("session not found on B");
  const seenOnB = follow(onB);
  const before = reads.of(poolB, session.id);
  await session.rename("followed from B");
  await seenOnB.titled("followed from B");
  expect(reads.of(poolB, session.id)).toBeGreaterThan(before);
  seenOnB.unsubscribe();
  markerSeenOnB.unsubscribe();
});

/** Polls `read` until `done` holds (10 s at most). */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
