import { createRequire } from "node:module";

/**
 * Set on an API process of the fault suite (never a deployment setting): every bus notice that
 * arrives from Postgres LISTEN is lost, so the process never hears of other processes' commits
 * through the bus. It shows that a lost notice costs latency, never an answer. The API does not
 * read it; `drop-notices-preload.ts` does, preloaded by the test process starter.
 */
export const DROP_NOTICES_ENV = "PARLEY_FAULT_DROP_NOTICES";

/** The one mode: notices *received* are lost (own notices are delivered locally, without the bus). */
export const DROP_NOTICES_MODE = "received";

/** Written by the process for each notice lost, so a test can prove the fault fired. */
export const NOTICE_DROPPED_MESSAGE = "fault: bus notice dropped";

/** The listen connection's liveness probes: kept, or the connection would think itself dead and reconnect. */
const HEARTBEAT_CHANNEL_PREFIX = "parley_heartbeat_";

interface NotificationLike {
  channel?: unknown;
  payload?: unknown;
}

type Emit = (this: object, event: string | symbol, ...args: unknown[]) => boolean;

/** One log line in the API's format (pino JSON, level warn), beside the API's own output. */
function logWarning(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, ...fields })}\n`);
}

/**
 * Wraps `pg.Client.prototype.emit` of the process's `pg` (the driver under the NOTIFY bus's listen
 * connection) so that no `notification` event of a bus channel reaches a listener. The event bus is
 * untouched: it simply never hears a notice, as when Postgres loses one.
 */
export function installNoticeDrop(): void {
  const require = createRequire(import.meta.url);
  const pg = require("pg") as { Client: { prototype: { emit: Emit } } };
  const original = pg.Client.prototype.emit;
  pg.Client.prototype.emit = function droppingEmit(this: object, event, ...args) {
    if (event === "notification") {
      const message = (args[0] ?? {}) as NotificationLike;
      const channel = typeof message.channel === "string" ? message.channel : "";
      if (!channel.startsWith(HEARTBEAT_CHANNEL_PREFIX)) {
        logWarning({ msg: NOTICE_DROPPED_MESSAGE, channel, notice: message.payload });
        return false;
      }
    }
    return original.call(this, event, ...args);
  };
  logWarning({ msg: "FAULT HOOK on: bus notices are dropped (tests only)", mode: DROP_NOTICES_MODE });
}
