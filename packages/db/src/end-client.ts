import type pg from "pg";

/**
 * Ends a dedicated `pg.Client` within `graceMs`: the polite goodbye (Terminate, then wait for the
 * server to close the socket) can wait forever on a stalled server or a half-open socket, so the
 * socket is destroyed after the grace period. Never rejects: the connection is being thrown away.
 */
export async function endClient(client: pg.Client, graceMs = 2_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const forced = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      destroyClientSocket(client);
      resolve();
    }, graceMs);
    // The socket keeps the process alive while it is open; the timer need not.
    timer.unref();
  });
  try {
    await Promise.race([client.end().catch(() => undefined), forced]);
  } finally {
    clearTimeout(timer);
  }
}

/** Drops the socket under a client at once, as a network failure would. */
export function destroyClientSocket(client: pg.Client): void {
  (client as pg.Client & { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Ends a dedicated client this code gives up on itself (closing, or a failed setup): its `end`
 * listeners go first, since they are there to report a connection lost, which this is not.
 */
export async function discardClient(client: pg.Client): Promise<void> {
  client.removeAllListeners("end");
  await endClient(client);
}
