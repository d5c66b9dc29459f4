import type pg from "pg";

/**
 * Each takes (`pg_try_advisory_lock`) or gives back (`pg_advisory_unlock`) the advisory locks of
 * many sessions in one statement, answering per session in the order given.
 */
const STATEMENTS = {
  lock: `SELECT n::int AS n, pg_try_advisory_lock(hashtextextended(id, 0)) AS done
           FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
  unlock: `SELECT n::int AS n, pg_advisory_unlock(hashtextextended(id, 0)) AS done
             FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
} as const;

export type LockOperation = keyof typeof STATEMENTS;

/** A batch queued on the lock connection and not sent yet: calls of its kind may still join it. */
export interface OpenLockBatch {
  readonly kind: LockOperation;
  readonly session_ids: string[];
  readonly results: Promise<boolean[]>;
}

/** The lock connection's queue as a batch sees it (`PostgresTurnLeaseManager`'s). */
export interface LockQueue {
  /** The batch at the queue's tail, if it is one and not sent yet; the queue clears it on every enqueue. */
  open: OpenLockBatch | null;
}

/**
 * Locks or unlocks `session_id` on the one lock connection, in call order: the call joins the batch
 * at the queue's tail when that is of the same kind and not yet sent, else queues a new batch. A
 * burst of answers (50 at once: each `respond` locks its session, each finished Turn unlocks it)
 * then costs a few round trips on that connection, where one each queued them all behind each
 * other. Only a batch at the tail is joined, so no call overtakes one queued before it.
 */
export function batchedLockCall(
  queue: LockQueue,
  kind: LockOperation,
  session_id: string,
  enqueue: (task: (client: pg.Client) => Promise<boolean[]>) => Promise<boolean[]>,
): Promise<boolean> {
  let batch = queue.open?.kind === kind ? queue.open : null;
  if (!batch) {
    const session_ids: string[] = [];
    const results = enqueue(async (client) => {
      // Sent now: later calls queue behind it.
      if (queue.open?.session_ids === session_ids) queue.open = null;
      // Named: the lock connection parses each of the two statements once.
      const { rows } = await client.query<{ n: number; done: boolean }>({
        name: `parley_${kind}_batch`,
        text: STATEMENTS[kind],
        values: [session_ids],
      });
      const done = new Array<boolean>(session_ids.length).fill(false);
      for (const row of rows) done[row.n - 1] = row.done;
      return done;
    });
    batch = { kind, session_ids, results };
    queue.open = batch;
  }
  const index = batch.session_ids.push(session_id) - 1;
  return batch.results.then((done) => done[index] === true);
}
