import type pg from "pg";

/** Every lock connection's `application_name` starts with this; the holder's id follows. */
const APPLICATION_NAME_PREFIX = "parley-turn-leases:";

/** What the server keeps of an `application_name`: NAMEDATALEN - 1 bytes. */
const APPLICATION_NAME_MAX_BYTES = 63;

/**
 * The `application_name` of a lock connection: `parley-turn-leases:<holder_id>`, the way the server
 * shows it in `pg_stat_activity`. The server replaces characters outside printable ASCII and keeps 63
 * bytes; both are done here, so the name shown is exactly this one (one byte per character).
 */
export function lockConnectionApplicationName(holder_id: string): string {
  const printable = holder_id.replace(/[^\x20-\x7e]/g, "?");
  return `${APPLICATION_NAME_PREFIX}${printable}`.slice(0, APPLICATION_NAME_MAX_BYTES);
}

/**
 * Who holds the Turn lease of `session_id` in this database, as the server knows it: the backend
 * holding the session's advisory lock (`pg_locks`, key `hashtextextended(session_id, 0)`), named by
 * its `application_name` (`pg_stat_activity`) — the holder's id, cut to what
 * `lockConnectionApplicationName` keeps. Null when the lock is free.
 */
export async function turnLeaseHolder(
  db: Pick<pg.ClientBase, "query">,
  session_id: string,
): Promise<string | null> {
  // A bigint advisory key is shown as its high (classid) and low (objid) 32 bits, objsubid 1.
  const { rows } = await db.query<{ application_name: string }>(
    `SELECT activity.application_name
       FROM pg_locks AS lock
       JOIN pg_stat_activity AS activity ON activity.pid = lock.pid
      WHERE lock.locktype = 'advisory' AND lock.granted AND lock.objsubid = 1
        AND lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((lock.classid::bigint << 32) | lock.objid::bigint) = hashtextextended($1, 0)`,
    [session_id],
  );
  const name = rows[0]?.application_name;
  if (name === undefined) return null;
  return name.startsWith(APPLICATION_NAME_PREFIX) ? name.slice(APPLICATION_NAME_PREFIX.length) : name;
}

/**
 * The advisory lock keys held in this database now (one row per granted bigint advisory lock), as
 * SQL to join against `hashtextextended(session_id, 0)`: what tells a Turn whose holder lives from
 * one whose holder is gone, without a write or a heartbeat row. Its cost grows with the locks held
 * (Turns running now), not with the Turns stored.
 */
export const HELD_LEASE_KEYS_SQL = `
  SELECT (lock.classid::bigint << 32) | lock.objid::bigint AS key
    FROM pg_locks AS lock
   WHERE lock.locktype = 'advisory' AND lock.granted AND lock.objsubid = 1
     AND lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
