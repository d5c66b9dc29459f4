import { connect, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import type { RuntimeLogger } from "@parley/session-core";
import { type BusTransport, BusUnreachableError, type TransportHandlers } from "./bus-transport.js";
import { decodeNotifyPayload, encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";

export interface NatsTransportOptions {
  /** `nats://host:port` (several, comma-separated, for a cluster). */
  url: string;
  /** First token of every subject (default `parley`). */
  prefix?: string | undefined;
  logger?: Pick<RuntimeLogger, "warn" | "error"> | undefined;
  /** Client ping period in ms; two unanswered pings mark the connection dead (default 1,000). */
  pingIntervalMs?: number | undefined;
}

/** NATS servers' default `max_payload`, assumed until the server said its own. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1_048_576;

/** Characters a NATS subject token may not hold (separators, wildcards, whitespace). */
const UNSAFE_TOKEN = /[^A-Za-z0-9_:-]/;

/**
 * The subject token of a session: the id itself when it is a plain token, else `~` and its UTF-8
 * bytes in hex (`~` never appears in a plain token, so the two forms cannot collide).
 */
export function sessionSubjectToken(session_id: string): string {
  return session_id.length > 0 && !UNSAFE_TOKEN.test(session_id)
    ? session_id
    : `~${Buffer.from(session_id, "utf8").toString("hex")}`;
}

/**
 * Notices over NATS core pub/sub: one subject per session (`<prefix>.session.<id>`) and one for the
 * admin feed (`<prefix>.interactions`). Core NATS is at-most-once, like NOTIFY; the bus reads the
 * rows and fills gaps, so no JetStream is needed. The client reconnects by itself (forever); after
 * each reconnection the bus catches up. This process does not receive its own notices (`noEcho`):
 * it delivers its publishes locally.
 */
export class NatsTransport implements BusTransport {
  readonly #options: NatsTransportOptions;
  readonly #prefix: string;
  #connection: NatsConnection | null = null;
  readonly #subscriptions: Subscription[] = [];

  /** The server's `max_payload` (1 MiB by default) once connected. */
  get maxNoticeBytes(): number {
    return this.#connection?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES;
  }

  constructor(options: NatsTransportOptions) {
    this.#options = options;
    this.#prefix = options.prefix ?? "parley";
  }

  async start(handlers: TransportHandlers): Promise<void> {
    const servers = this.#options.url.split(",").map((server) => server.trim());
    let connection: NatsConnection;
    try {
      connection = await connect({
        servers,
        name: "parley-event-bus",
        noEcho: true,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        pingInterval: this.#options.pingIntervalMs ?? 1_000,
        maxPingOut: 2,
      });
    } catch (error) {
      throw new BusUnreachableError(
        `Cannot reach the NATS server at ${this.#options.url} (PARLEY_BUS): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.#connection = connection;
    const receive = (error: Error | null, message: { string(): string }) => {
      if (error) {
        this.#options.logger?.warn({ err: error }, "NATS subscription error");
        return;
      }
      const notice = decodeNotifyPayload(message.string());
      if (notice) handlers.onNotice(notice);
    };
    // Every session's notices: the bus drops those of sessions nobody here listens to (no read).
    this.#subscriptions.push(connection.subscribe(`${this.#prefix}.session.>`, { callback: receive }));
    this.#subscriptions.push(connection.subscribe(`${this.#prefix}.interactions`, { callback: receive }));
    await connection.flush();
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect") {
          this.#options.logger?.warn({ server: status.server }, "NATS connection lost; reconnecting");
        } else if (status.type === "reconnect") {
          handlers.onReconnected();
        }
      }
    })().catch((error: unknown) => this.#options.logger?.error({ err: error }, "NATS status stream failed"));
  }

  async send(notices: NotifyPayload[]): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    try {
      for (const notice of notices) connection.publish(this.#subject(notice), encodeNotifyPayload(notice));
    } catch (error) {
      // The events are committed; other processes read them at their next notice of the session.
      this.#options.logger?.error({ err: error }, "NATS publish failed after commit");
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = null;
    if (connection && !connection.isClosed()) await connection.close();
  }

  /** Drops the connection (the client reconnects at once); notices sent meanwhile are lost. */
  async simulateConnectionLoss(): Promise<void> {
    await this.#connection?.reconnect();
  }

  #subject(notice: NotifyPayload): string {
    return notice.kind === "interaction"
      ? `${this.#prefix}.interactions`
      : `${this.#prefix}.session.${sessionSubjectToken(notice.session_id)}`;
  }
}
