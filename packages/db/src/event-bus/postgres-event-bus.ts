import type {
  EventBus,
  EventBusListener,
  InteractionEvent,
  RuntimeLogger,
  SessionEvent,
} from "@parley/session-core";
import type pg from "pg";
import {
  type InteractionEventRow,
  type SessionEventRow,
  toInteractionEvent,
  toSessionEvent,
} from "../session-store/row-mapping.js";
import { ListenConnection } from "./listen-connection.js";
import { decodeNotifyPayload, encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";
import { SerialQueues } from "./serial-queue.js";

export interface PostgresEventBusOptions {
  /** For NOTIFY and for reading the announced rows. */
  pool: pg.Pool;
  /** For the dedicated LISTEN connection. */
  url: string;
  channel?: string;
  logger?: Pick<RuntimeLogger, "warn" | "error">;
  /** How many sessions' delivery positions are remembered (least recently used are forgotten). */
  maxTrackedSessions?: number;
}

const INTERACTION_STREAM = "\u0000interactions";

/**
 * `EventBus` over PostgreSQL LISTEN/NOTIFY, so that a mutation committed by one process reaches
 * subscribers in every process. A NOTIFY carries only ids; listeners read the rows from
 * `session_events` / `interaction_events`. The bus keeps, per session, the last `event_id` it
 * delivered and delivers each session's events strictly in order, each once: a notice or a local
 * publish that skips ids first reads the missing range from the table; ids at or below the position
 * are dropped (e.g. this process's own notices coming back). The admin feed is one ordered stream
 * (its ids grow in commit order, see the store). After a lost LISTEN connection the bus reads what
 * it missed. Local publishes are delivered before `publish` resolves.
 */
export class PostgresEventBus implements EventBus {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #logger: Pick<RuntimeLogger, "warn" | "error"> | undefined;
  readonly #maxTrackedSessions: number;
  readonly #listeners = new Set<EventBusListener>();
  /** Last delivered event id by session, in least-recently-used order. */
  readonly #positions = new Map<string, number>();
  readonly #queues = new SerialQueues();
  readonly #connection: ListenConnection;
  #interactionPosition = 0;

  constructor(options: PostgresEventBusOptions) {
    this.#pool = options.pool;
    this.#channel = options.channel ?? "parley_events";
    this.#logger = options.logger;
    this.#maxTrackedSessions = options.maxTrackedSessions ?? 50_000;
    this.#connection = new ListenConnection({
      url: options.url,
      channel: this.#channel,
      logger: options.logger,
      onNotification: (payload) => this.#onNotification(payload),
      onListening: (reconnected) => this.#onListening(reconnected),
    });
  }

  /** Starts listening; the admin feed is delivered from the newest id at this moment on. */
  async start(): Promise<void> {
    const { rows } = await this.#pool.query<{ last: string }>(
      "SELECT COALESCE(MAX(event_id), 0)::text AS last FROM interaction_events",
    );
    this.#interactionPosition = Number(rows[0]?.last ?? 0);
    await this.#connection.start();
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#connection.close();
  }

  /** Drops the LISTEN connection as a network failure would (tests of the catch-up path). */
  simulateConnectionLoss(): void {
    this.#connection.simulateConnectionLoss();
  }

  subscribe(listener: EventBusListener): () => void {
    const entry = { ...listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  async publish(events: {
    session_events: SessionEvent[];
    interaction_events: InteractionEvent[];
  }): Promise<void> {
    const notices: NotifyPayload[] = [];
    const bySession = new Map<string, SessionEvent[]>();
    for (const event of events.session_events) {
      bySession.set(event.session_id, [...(bySession.get(event.session_id) ?? []), event]);
    }
    const deliveries: Promise<void>[] = [];
    for (const [session_id, list] of bySession) {
      const sorted = [...list].sort((left, right) => left.event_id - right.event_id);
      const first = sorted[0]?.event_id ?? 0;
      const last = sorted.at(-1)?.event_id ?? 0;
      notices.push({ kind: "session", session_id, first, last });
      deliveries.push(
        this.#queues.run(session_id, () => this.#deliverSession(session_id, first, last, sorted)),
      );
    }
    if (events.interaction_events.length > 0) {
      const sorted = [...events.interaction_events].sort((left, right) => left.event_id - right.event_id);
      const last = sorted.at(-1)?.event_id ?? 0;
      notices.push({ kind: "interaction", last });
      deliveries.push(this.#queues.run(INTERACTION_STREAM, () => this.#deliverInteractions(last, sorted)));
    }
    // Other processes are told while this one delivers locally. The events are committed whatever
    // happens here, so a failed delivery is logged, not thrown at the writer.
    const notified = notices.length === 0 ? Promise.resolve() : this.#notify(notices);
    const delivered = await Promise.allSettled(deliveries);
    for (const outcome of delivered) {
      if (outcome.status === "rejected")
        this.#logger?.error({ err: outcome.reason }, "local event delivery failed");
    }
    await notified;
  }

  async #notify(notices: NotifyPayload[]): Promise<void> {
    try {
      await this.#pool.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [
        this.#channel,
        notices.map(encodeNotifyPayload),
      ]);
    } catch (error) {
      // The events are committed; other processes read them at their next notice of the session.
      this.#logger?.error({ err: error }, "NOTIFY failed after commit");
    }
  }

  #onNotification(text: string | undefined): void {
    const notice = decodeNotifyPayload(text);
    if (!notice) return;
    const delivery =
      notice.kind === "session"
        ? this.#queues.run(notice.session_id, () =>
            this.#deliverSession(notice.session_id, notice.first, notice.last, []),
          )
        : this.#queues.run(INTERACTION_STREAM, () => this.#deliverInteractions(notice.last, []));
    delivery.catch((error: unknown) => this.#logger?.error({ err: error, notice }, "event delivery failed"));
  }

  /** After a reconnection: read every tracked session's and the feed's events published meanwhile. */
  #onListening(reconnected: boolean): void {
    if (!reconnected) return;
    const sessions = [...this.#positions.keys()];
    const catchUp = async () => {
      if (sessions.length > 0) {
        const { rows } = await this.#pool.query<{ session_id: string; last_event_id: number }>(
          "SELECT session_id, last_event_id FROM sessions WHERE session_id = ANY($1::text[])",
          [sessions],
        );
        for (const row of rows) {
          void this.#queues
            .run(row.session_id, () =>
              this.#deliverSession(row.session_id, row.last_event_id, row.last_event_id, []),
            )
            .catch((error: unknown) => this.#logger?.error({ err: error }, "event catch-up failed"));
        }
      }
      const { rows } = await this.#pool.query<{ last: string }>(
        "SELECT COALESCE(MAX(event_id), 0)::text AS last FROM interaction_events",
      );
      await this.#queues.run(INTERACTION_STREAM, () =>
        this.#deliverInteractions(Number(rows[0]?.last ?? 0), []),
      );
    };
    catchUp().catch((error: unknown) => this.#logger?.error({ err: error }, "event catch-up failed"));
  }

  /** Delivers the session's events up to `last` that were not delivered yet, in order (serialised per session). */
  async #deliverSession(
    session_id: string,
    first: number,
    last: number,
    known: SessionEvent[],
  ): Promise<void> {
    const position = this.#positions.get(session_id) ?? first - 1;
    if (last <= position) return;
    const contiguous =
      known.length === last - position &&
      known.every((event, index) => event.event_id === position + 1 + index);
    const events = contiguous ? known : await this.#readSessionEvents(session_id, position, last);
    for (const event of events) {
      this.#emit((listener) => listener.onSessionEvent?.(structuredClone(event)), {
        session_id,
        event_id: event.event_id,
      });
    }
    this.#track(session_id, Math.max(position, events.at(-1)?.event_id ?? position));
  }

  async #deliverInteractions(last: number, known: InteractionEvent[]): Promise<void> {
    const position = this.#interactionPosition;
    if (last <= position) return;
    const contiguous =
      known.length === last - position &&
      known.every((event, index) => event.event_id === position + 1 + index);
    const events = contiguous ? known : await this.#readInteractionEvents(position, last);
    for (const event of events) {
      this.#emit((listener) => listener.onInteractionEvent?.(structuredClone(event)), {
        interaction_event_id: event.event_id,
      });
    }
    this.#interactionPosition = Math.max(position, events.at(-1)?.event_id ?? position);
  }

  async #readSessionEvents(session_id: string, after: number, upTo: number): Promise<SessionEvent[]> {
    const { rows } = await this.#pool.query<SessionEventRow>(
      `SELECT session_id, event_id, mutation FROM session_events
        WHERE session_id = $1 AND event_id > $2 AND event_id <= $3 ORDER BY event_id`,
      [session_id, after, upTo],
    );
    return rows.map(toSessionEvent);
  }

  async #readInteractionEvents(after: number, upTo: number): Promise<InteractionEvent[]> {
    const { rows } = await this.#pool.query<InteractionEventRow>(
      `SELECT event_id, kind, session_id, interaction FROM interaction_events
        WHERE event_id > $1 AND event_id <= $2 ORDER BY event_id`,
      [after, upTo],
    );
    return rows.map(toInteractionEvent);
  }

  #track(session_id: string, position: number): void {
    this.#positions.delete(session_id);
    this.#positions.set(session_id, position);
    if (this.#positions.size > this.#maxTrackedSessions) {
      const oldest = this.#positions.keys().next().value;
      if (oldest !== undefined) this.#positions.delete(oldest);
    }
  }

  #emit(call: (listener: EventBusListener) => unknown, fields: Record<string, unknown>): void {
    for (const listener of [...this.#listeners]) {
      try {
        const result = call(listener);
        if (result instanceof Promise) {
          result.catch((error: unknown) =>
            this.#logger?.error({ ...fields, err: error }, "event bus listener failed"),
          );
        }
      } catch (error) {
        this.#logger?.error({ ...fields, err: error }, "event bus listener failed");
      }
    }
  }
}
