import { type SessionCommit, StoreConflictError } from "@parley/session-core";
import { buildSessionRecord, buildUserMessage, messageCommitOf, T0 } from "@parley/session-core/testing";
import { Prisma } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForLockWaiter } from "../testing/lock-waiter.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";
import { withdrawPrompt } from "./queued-prompts.js";
import { enqueueCommand } from "./session-commands.js";
import { inTransaction, type SqlClient } from "./sql-client.js";

// A revision that reads the session's commands (a Turn's start, a finish, settlements) is one
// statement whose reads see the snapshot it took before it waited for the session row. Each test
// lets another transaction write the session's commands while the revision waits behind it, and
// checks that the revision decided on what that transaction committed (it goes again, locked).

let database: TestDatabase;
let pool: pg.Pool;
let store: PrismaSessionStore;
let holderPool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  holderPool = new pg.Pool({ connectionString: database.url, max: 1 });
  store = new PrismaSessionStore(pool);
});
afterAll(async () => {
  await holderPool.end();
  await pool.end();
  await database.drop();
});

/**
 * Runs `write` in a transaction that holds the session row, starts `revision` once the row is held,
 * and commits `write` once the revision waits for that row; returns how the revision ended.
 */
async function revisionBehind(
  write: (tx: SqlClient) => Promise<unknown>,
  revision: () => Promise<unknown>,
): Promise<PromiseSettledResult<unknown>> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held: () => void = () => undefined;
  const rowHeld = new Promise<void>((resolve) => {
    held = resolve;
  });
  const writing = inTransaction(holderPool, async (tx) => {
    await write(tx);
    held();
    await released;
  });
  await rowHeld;
  const [settled] = await Promise.allSettled([
    revision(),
    waitForLockWaiter(pool, "WITH updated AS").finally(release),
  ]);
  await writing;
  return settled;
}

function startCommit(session_id: string, turn_id: string): SessionCommit {
  const message = buildUserMessage({ session_id, message_id: `message:${turn_id}`, sequence: 1, turn_id });
  return messageCommitOf(message, {
    claim: { holder: "holder:a", turn_id },
    starts_turn: { turn_id, command_id: `command:${turn_id}`, query: "hi", created_at: T0 },
  });
}

function finishCommit(session_id: string, turn_id: string): SessionCommit {
  return { session_id, ends_turn: { turn_id, cancel_queued_prompts: false } };
}

async function lastEventId(session_id: string): Promise<number> {
  const { rows } = await pool.query<{ last_event_id: number }>(
    "SELECT last_event_id FROM sessions WHERE session_id = $1",
    [session_id],
  );
  return rows[0]?.last_event_id ?? Number.NaN;
}

const promptFor = (session_id: string, command_id: string, request_id: string) => ({
  session_id,
  command_id,
  command: { kind: "prompt" as const, input: { query: "more" }, request_id },
  created_at: T0 + 1,
  new_turn_id: `turn:${command_id}`,
});

describe("a revision that reads commands, behind a write committed while it waited", () => {
  it("a Turn's finish behind a prompt queued for that Turn is refused as queued, and writes nothing", async () => {
    const session_id = "session:finish-behind-prompt";
    await store.createSession(buildSessionRecord({ session_id }));
    await store.commit(startCommit(session_id, "turn:t"));

    const outcome = await revisionBehind(
      (tx) => enqueueCommand(tx, promptFor(session_id, "command:steer", "request:steer")),
      () => store.commit(finishCommit(session_id, "turn:t")),
    );

    expect(outcome.status).toBe("rejected");
    const reason = outcome.status === "rejected" ? outcome.reason : undefined;
    expect(reason).toBeInstanceOf(StoreConflictError);
    expect((reason as StoreConflictError).kind).toBe("queued");
    expect(await store.getActiveTurnId(session_id)).toBe("turn:t");
    expect(await store.getActiveTurn(session_id)).toMatchObject({ turn_id: "turn:t", state: "running" });
    expect((await store.listQueuedCommands(session_id)).map((command) => command.command_id)).toEqual([
      "command:steer",
    ]);
  });

  it("a Turn's start behind a prompt that started another Turn is refused as queued, and writes nothing", async () => {
    const session_id = "session:start-behind-prompt";
    await store.createSession(buildSessionRecord({ session_id }));

    const outcome = await revisionBehind(
      (tx) => enqueueCommand(tx, promptFor(session_id, "command:queued", "request:queued")),
      () => store.commit(startCommit(session_id, "turn:s")),
    );

    expect(outcome.status).toBe("rejected");
    const reason = outcome.status === "rejected" ? outcome.reason : undefined;
    expect((reason as StoreConflictError).kind).toBe("queued");
    expect(await store.getActiveTurnId(session_id)).toBe("turn:command:queued");
    expect(await store.getActiveTurn(session_id)).toMatchObject({
      turn_id: "turn:command:queued",
      state: "queued",
    });
    expect(await store.getMessage(session_id, "message:turn:s")).toBeNull();
    expect(await store.getCommand(session_id, "command:turn:s")).toBeNull();
    const { rows } = await pool.query(
      "SELECT last_event_id, lease_epoch FROM sessions WHERE session_id = $1",
      [session_id],
    );
    expect(rows).toEqual([{ last_event_id: 0, lease_epoch: 0 }]);
  });

  it("a Turn's finish behind the withdrawal of the prompt queued for it commits, once", async () => {
    const session_id = "session:finish-behind-withdrawal";
    await store.createSession(buildSessionRecord({ session_id }));
    await store.commit(startCommit(session_id, "turn:t"));
    await store.enqueueCommand(promptFor(session_id, "command:steer", "request:steer"));

    const outcome = await revisionBehind(
      (tx) => withdrawPrompt(tx, { session_id, request_id: "request:steer", settled_at: T0 + 2 }),
      () => store.commit(finishCommit(session_id, "turn:t")),
    );

    expect(outcome.status).toBe("fulfilled");
    expect(await store.getActiveTurnId(session_id)).toBeNull();
    expect(await store.getActiveTurn(session_id)).toBeNull();
    expect(await store.getCommand(session_id, "command:steer")).toMatchObject({ status: "cancelled" });
  });

  it("a Turn's finish behind a rename commits once, keeping the new title", async () => {
    const session_id = "session:finish-behind-rename";
    await store.createSession(buildSessionRecord({ session_id, title: "before" }));
    await store.commit(startCommit(session_id, "turn:t"));
    const before = await lastEventId(session_id);

    const outcome = await revisionBehind(
      // A bare write of the row, as a rename is: the finish cannot tell it from a command's.
      (tx) => tx.count(Prisma.sql`UPDATE sessions SET title = 'after' WHERE session_id = ${session_id}`),
      () =>
        store.commit({
          ...finishCommit(session_id, "turn:t"),
          mutation: {
            session_id,
            created_at: T0 + 3,
            variant: "turn",
            turn_id: "turn:t",
            type: "finish",
            status: "completed",
          },
        }),
    );

    expect(outcome.status).toBe("fulfilled");
    expect(await store.getActiveTurnId(session_id)).toBeNull();
    expect((await store.getSession(session_id))?.title).toBe("after");
    expect(await lastEventId(session_id)).toBe(before + 1);
  });
});
