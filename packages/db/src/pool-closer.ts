import type pg from "pg";

/** How long `close` lets checked-out connections finish their work before discarding them. */
const DEFAULT_GRACE_MS = 5_000;

/**
 * A bounded `pool.end()`. `pg.Pool#end` waits until every checked-out client is given back, and one
 * may never be: when a transaction's connection dies under it, Prisma's driver adapter fails its
 * ROLLBACK and never releases the client, so `end` would wait forever. The closer follows which
 * clients are out; at close it discards the dead ones at once and the live ones after `graceMs`
 * (an in-flight commit gets that long to finish), so `end` completes. Attach before first use.
 */
export function createPoolCloser(pool: pg.Pool): (graceMs?: number) => Promise<void> {
  const checkedOut = new Set<pg.PoolClient>();
  const dead = new WeakSet<pg.PoolClient>();
  pool.on("connect", (client) => {
    client.once("end", () => dead.add(client));
  });
  pool.on("acquire", (client) => checkedOut.add(client));
  pool.on("release", (_error, client) => checkedOut.delete(client));
  pool.on("remove", (client) => checkedOut.delete(client));

  const discard = (client: pg.PoolClient) => {
    checkedOut.delete(client);
    try {
      // Releasing with an error makes the pool destroy the client instead of keeping it idle.
      client.release(new Error("database closed"));
    } catch {
      // Released meanwhile by its user: nothing left to discard.
    }
  };

  let ending: Promise<void> | null = null;
  return (graceMs = DEFAULT_GRACE_MS) => {
    ending ??= (async () => {
      const ended = pool.end();
      for (const client of [...checkedOut]) if (dead.has(client)) discard(client);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"grace over">((resolve) => {
        timer = setTimeout(() => resolve("grace over"), graceMs);
      });
      const first = await Promise.race([ended.then(() => "ended" as const), graceOver]);
      clearTimeout(timer);
      if (first === "grace over") for (const client of [...checkedOut]) discard(client);
      await ended;
    })();
    return ending;
  };
}
