import pg from "pg";
import type { ParleyClient, ParleyStack } from "./parley-stack.js";

export interface WaitingSession {
  key: string;
  session_id: string;
  interaction_id: string;
}

async function inBatches<T>(items: T[], width: number, action: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await action(item);
      }
    }),
  );
}

/** `count` of `items`, spread evenly (first and last included): samples across a seeded range. */
export function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  const step = (items.length - 1) / (count - 1);
  return Array.from({ length: count }, (_, index) => items[Math.round(index * step)] as T);
}

/** Polls the database until `count` interactions of these sessions are pending. */
export async function waitForPending(
  databaseUrl: string,
  prefix: string,
  count: number,
  timeoutMs = 600_000,
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await client.query<{ session_id: string; interaction_id: string; title: string }>(
        `SELECT i.session_id, i.interaction_id, s.title FROM interactions i JOIN sessions s USING (session_id)
          WHERE i.status = 'pending' AND s.title LIKE $1`,
        [`${prefix}%`],
      );
      if (result.rows.length >= count) {
        return result.rows.map((row) => ({
          key: row.title,
          session_id: row.session_id,
          interaction_id: row.interaction_id,
        }));
      }
      if (Date.now() > deadline)
        throw new Error(`only ${result.rows.length} of ${count} interactions became pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates `count` sessions through the API and prompts each with `approve <key>`, `width` at a time,
 * then waits until every one of their approvals is committed as pending. The session title is its
 * key, so the bench can find interaction ids by title.
 */
export async function createWaitingSessions(
  stack: ParleyStack,
  client: ParleyClient,
  prefix: string,
  count: number,
  width = 20,
): Promise<WaitingSession[]> {
  const keys = Array.from({ length: count }, (_, index) => `${prefix}${index}`);
  await inBatches(keys, width, async (key) => {
    const session = await client.sessions.create({ title: key });
    await session.prompt(`approve ${key}`);
  });
  return waitForPending(stack.scratch.url, prefix, count);
}

/**
 * Waits until the runtime holds no session, i.e. every answered Turn finished: closing the stack
 * earlier would cut Turns mid-commit (their NOTIFY then finds the pool ended).
 */
export async function waitHostless(
  runtime: { stats(): { hosts: number } },
  timeoutMs = 600_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (runtime.stats().hosts > 0) {
    if (Date.now() > deadline) throw new Error(`${runtime.stats().hosts} sessions still held by the runtime`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export { inBatches };
