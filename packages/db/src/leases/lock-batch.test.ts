import type pg from "pg";
import { describe, expect, it } from "vitest";
import { batchedLockCall, type LockOperation, type LockQueue } from "./lock-batch.js";

/**
 * The lock connection's queue as the manager runs it: tasks one at a time in enqueue order, each
 * enqueue closing the batch at the tail. The client records each statement's kind and sessions and
 * answers `held` for every session listed there.
 */
function fakeConnection(held: Set<string> = new Set(), answered: Promise<void> = Promise.resolve()) {
  const sent: { kind: LockOperation; session_ids: string[] }[] = [];
  const client = {
    async query({ text, values }: { text: string; values: [string[]] }) {
      const kind: LockOperation = text.includes("pg_try_advisory_lock") ? "lock" : "unlock";
      const session_ids = [...values[0]];
      sent.push({ kind, session_ids });
      await answered;
      return {
        rows: session_ids.map((id, index) => ({ n: index + 1, done: kind === "unlock" || !held.has(id) })),
      };
    },
  } as unknown as pg.Client;
  const queue: LockQueue & { tail: Promise<unknown> } = { open: null, tail: Promise.resolve() };
  const enqueue = <T>(task: (client: pg.Client) => Promise<T>): Promise<T> => {
    queue.open = null;
    const run = queue.tail.then(() => task(client));
    queue.tail = run.catch(() => undefined);
    return run;
  };
  const call = (kind: LockOperation, session_id: string) => batchedLockCall(queue, kind, session_id, enqueue);
  return { sent, call, enqueue };
}

describe("batchedLockCall", () => {
  it("sends the locks called while a batch waits as one statement, answering each session", async () => {
    const connection = fakeConnection(new Set(["session:b"]));
    const answers = await Promise.all(
      ["session:a", "session:b", "session:c"].map((id) => connection.call("lock", id)),
    );
    expect(answers).toEqual([true, false, true]);
    expect(connection.sent).toEqual([{ kind: "lock", session_ids: ["session:a", "session:b", "session:c"] }]);
  });

  it("keeps call order across kinds: a call joins only the batch at the queue's tail", async () => {
    const connection = fakeConnection();
    await Promise.all([
      connection.call("lock", "session:a"),
      connection.call("unlock", "session:b"),
      connection.call("lock", "session:c"),
      connection.call("lock", "session:d"),
    ]);
    expect(connection.sent).toEqual([
      { kind: "lock", session_ids: ["session:a"] },
      { kind: "unlock", session_ids: ["session:b"] },
      { kind: "lock", session_ids: ["session:c", "session:d"] },
    ]);
  });

  it("a batch behind another task (the heartbeat) is not joined by calls from before that task", async () => {
    const connection = fakeConnection();
    const first = connection.call("lock", "session:a");
    const probe = connection.enqueue(async () => "probe");
    const second = connection.call("lock", "session:b");
    await Promise.all([first, probe, second]);
    expect(connection.sent).toEqual([
      { kind: "lock", session_ids: ["session:a"] },
      { kind: "lock", session_ids: ["session:b"] },
    ]);
  });

  it("a call made while a batch is being sent goes into the next one", async () => {
    let answer: () => void = () => undefined;
    const connection = fakeConnection(
      new Set(),
      new Promise((resolve) => {
        answer = resolve;
      }),
    );
    const first = connection.call("lock", "session:a");
    while (connection.sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = connection.call("lock", "session:b");
    answer();
    await Promise.all([first, second]);
    expect(connection.sent).toEqual([
      { kind: "lock", session_ids: ["session:a"] },
      { kind: "lock", session_ids: ["session:b"] },
    ]);
  });
});
