/**
 * One NOTIFY per notice, in one transaction of its own. A NOTIFY takes a transaction id, so its
 * commit is a commit record like any other, and by default waits for the WAL to be flushed (an
 * fsync, queued with the durable commits'). A notice needs no durability (it only says "read up to
 * id N" of rows committed, and flushed, before it; a crash ends every LISTEN anyway), so the
 * transaction commits without waiting for the flush (`synchronous_commit` off, for it alone).
 */
export const NOTIFY_STATEMENT =
  "SELECT pg_notify($1, payload), set_config('synchronous_commit', 'off', true) FROM unnest($2::text[]) AS payload";

/**
 * `NOTIFY_STATEMENT` for `payloads` on `channel`, as a named statement: each connection parses it
 * once, where an unnamed one is parsed and planned again at every notice (several per approval
 * cycle).
 */
export function notifyQuery(
  channel: string,
  payloads: string[],
): { name: string; text: string; values: unknown[] } {
  return { name: "parley_notify", text: NOTIFY_STATEMENT, values: [channel, payloads] };
}
