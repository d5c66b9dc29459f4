import { randomUUID } from "node:crypto";
import {
  type EventBus,
  type EventBusListener,
  type InteractionEvent,
  isLiveMutation,
  ListenerRegistry,
  type RuntimeLogger,
  type SessionEvent,
  type SessionMutation,
} from "@parley/session-core";
import type pg from "pg";
import { FEED_INTERACTION } from "../session-store/interaction-json.js";
import {
  type InteractionEventRow,
  type SessionEventRow,
  toInteractionEvent,
  toSessionEvent,
} from "../session-store/row-mapping.js";
import { logEntriesBetween } from "../session-store/session-log.js";
import type { BusTransport } from "./bus-transport.js";
import { encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";
import { SerialQueues } from "./serial-queue.js";

/** The bus's logger; `debug` (pino's), when present, hears live mutations too large to send. */
export type BusLogger = Pick<RuntimeLogger, "warn" | "error"> & { debug?: RuntimeLogger["info"] };

export interface NoticeEventBusOptions {
  /** For reading the announced rows (and, for NOTIFY, for sending). */
  pool: pg.Pool;
  transport: BusTransport;
  logger?: BusLogger | undefined;
  /** How many sessions' delivery positions are remembered (least recently used are forgotten). */
  maxTrackedSessions?: number | undefined;
}

const INTERACTION_STREAM = "\u0000interactions";

/**
 * `EventBus` whose processes exchange only ids (a `BusTransport` carries them) and read the rows
 * from `session_events` / `interaction_events`, so a notice can never outrun its commit and a lost
 * one costs latency, not events. The bus keeps, per session, the last `event_id` it delivered and
 * delivers each session's events strictly in order, each once: a notice or a local publish that
 * skips ids first reads the missing range from the table; ids at or below the position are dropped
 * (e.g. this process's own notices coming back). The admin feed is one ordered stream (its ids grow
 * in commit order, see the store). After the transport reconnects the bus reads what it missed for
 * the sessions it tracks, then tells listeners to resync. Local publishes are delivered before
 * `publish` resolves; notices to other processes are sent without waiting for them. Sessions nobody
 * in this process listens to are not read at all.
 *
 * Live mutations (DESIGN §10.6, ADR 0007) are the one payload the transport carries: there is no row
 * to read. A receiving bus runs one through the session's serial queue behind the durable deliveries,
 * reads up to the durable `event_id` it follows if it has not delivered that yet (the sender
 * committed it before), hands it over when the session's position is exactly that id, and drops it
 * when the position is past it (a later durable event covers it). A live notice larger than the
 * transport carries (NOTIFY: 8,000 bytes) reaches this process's listeners only
 * (`liveMutationsNotCarried`, logged at debug).
 */
export class NoticeEventBus implements EventBus {
  readonly #pool: pg.Pool;
  readonly #transport: BusTransport;
  readonly #logger: BusLogger | undefined;
  /** Marks this bus's live notices, which NOTIFY hands back to it (it delivered them locally). */
  readonly #origin = randomUUID();
  #liveNotCarried = 0;
  /**
   * How many listeners take live mutations, by session (key `undefined`: every session). The
   * runtime listens to the durable events of the sessions it holds but to no live mutation, so live
   * notices need an interest of their own to be skipped where nobody wants them.
   */
  readonly #liveInterest = new Map<string | undefined, number>();
  readonly #maxTrackedSessions: number;
  readonly #listeners: ListenerRegistry;
  /** Last delivered event id by session, in least-recently-used order. */
  readonly #positions = new Map<string, number>();
  readonly #queues = new SerialQueues();
  /** Notices handed to the transport and not yet sent (see `#send`). */
  readonly #sending = new Set<Promise<unknown>>();
  #interactionPosition = 0;

  constructor(options: NoticeEventBusOptions) {
    this.#pool = options.pool;
    this.#transport = options.transport;
    this.#logger = options.logger;
    this.#maxTrackedSessions = options.maxTrackedSessions ?? 50_000;
    this.#listeners = new ListenerRegistry({ logger: options.logger });
  }

  /** Starts receiving; the admin feed is delivered from the newest id at this moment on. */
  async start(): Promise<void> {
    this.#interactionPosition = await this.#latestInteractionId();
    await this.#transport.start({
      onNotice: (notice) => this.#onNotice(notice),
      onReconnected: () => this.#onReconnected(),
    });
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#liveInterest.clear();
    await Promise.all(this.#sending);
    await this.#transport.close();
  }

  /** Drops the transport's connection as a network failure would (tests of the catch-up path). */
  simulateConnectionLoss(): Promise<void> {
    return this.#transport.simulateConnectionLoss();
  }

  /** Number of live subscriptions (lets tests check that subscribers clean up). */
  get subscriberCount(): number {
    return this.#listeners.size;
  }

  /** The largest notice the transport carries (a larger live mutation stays in this process). */
  get maxNoticeBytes(): number {
    return this.#transport.maxNoticeBytes;
  }

  /** Live mutations that reached this process's listeners only: too large for the transport. */
  get liveMutationsNotCarried(): number {
    return this.#liveNotCarried;
  }

  /**
   * This process's listeners at once; other processes' through the transport, behind the notices
   * of the durable events published before it (one ordered queue of notices per bus).
   */
  publishLive(mutation: SessionMutation): void {
    const body = JSON.stringify(mutation);
    this.#listeners.emitLive(JSON.parse(body) as SessionMutation);
    const notice: NotifyPayload = {
      kind: "live",
      session_id: mutation.session_id,
      event_id: mutation.event_id,
      origin: this.#origin,
      body,
    };
    const bytes = Buffer.byteLength(encodeNotifyPayload(notice));
    if (bytes > this.#transport.maxNoticeBytes) {
      // Best effort by contract: the next checkpoint carries its persisted form to everyone.
      this.#liveNotCarried += 1;
      this.#logger?.debug?.(
        {
          session_id: mutation.session_id,
          event_id: mutation.event_id,
          bytes,
          limit: this.#transport.maxNoticeBytes,
        },
        "live mutation too large for the bus transport: delivered in this process only",
      );
      return;
    }
    this.#send([notice]);
  }

  subscribe(listener: EventBusListener): () => void {
    const unsubscribe = this.#listeners.add(listener);
    if (!listener.onLiveMutation) return unsubscribe;
    const key = listener.session_id;
    this.#liveInterest.set(key, (this.#liveInterest.get(key) ?? 0) + 1);
    let subscribed = true;
    return () => {
      unsubscribe();
      if (!subscribed) return;
      subscribed = false;
      const left = (this.#liveInterest.get(key) ?? 1) - 1;
      if (left > 0) this.#liveInterest.set(key, left);
      else this.#liveInterest.delete(key);
    };
  }

  #wantsLive(session_id: string): boolean {
    return this.#liveInterest.has(undefined) || this.#liveInterest.has(session_id);
  }

  async publish(events: {
    session_events: SessionEvent[];
    interaction_events: InteractionEvent[];
  }): Promise<void> {
    const notices: NotifyPayload[] = [];
    const bySession = new Map<string, SessionEvent[]>();
    for (const event of events.session_events) {
      const list = bySession.get(event.session_id);
      if (list) list.push(event);
      else bySession.set(event.session_id, [event]);
    }
    const deliveries: Promise<void>[] = [];
    for (const [session_id, list] of bySession) {
      const sorted = list.length > 1 ? [...list].sort((left, right) => left.event_id - right.event_id) : list;
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
    if (notices.length > 0) this.#send(notices);
    const delivered = await Promise.allSettled(deliveries);
    for (const outcome of delivered) {
      if (outcome.status === "rejected")
        this.#logger?.error({ err: outcome.reason }, "local event delivery failed");
    }
  }

  /**
   * Tells other processes without making the writer wait for it: a notice only says "read up to
   * id N", so notices that overtake each other are harmless (a receiver reads the range it has not
   * delivered and drops what it has), and a lost one is caught up by the next notice or the
   * reconnect catch-up. The writer's next commit no longer waits a round trip for each NOTIFY.
   * `close()` waits for the notices still in flight.
   */
  #send(notices: NotifyPayload[]): void {
    const sending = this.#transport
      .send(notices)
      .catch((error: unknown) => this.#logger?.error({ err: error }, "sending notices failed"))
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }

  #onNotice(notice: NotifyPayload): void {
    if (notice.kind === "live") {
      this.#onLiveNotice(notice);
      return;
    }
    const delivery =
      notice.kind === "session"
        ? this.#queues.run(notice.session_id, () =>
            this.#deliverSession(notice.session_id, notice.first, notice.last, []),
          )
        : this.#queues.run(INTERACTION_STREAM, () => this.#deliverInteractions(notice.last, []));
    delivery.catch((error: unknown) => this.#logger?.error({ err: error, notice }, "event delivery failed"));
  }

  #onLiveNotice(notice: Extract<NotifyPayload, { kind: "live" }>): void {
    // Its own (NOTIFY echoes them) went to the local listeners at publish; nobody here: no work.
    if (notice.origin === this.#origin || !this.#wantsLive(notice.session_id)) return;
    this.#queues
      .run(notice.session_id, () => this.#deliverLive(notice))
      .catch((error: unknown) =>
        this.#logger?.error({ err: error, session_id: notice.session_id }, "live delivery failed"),
      );
  }

  /** Runs in the session's queue, so after every durable delivery of the session noticed before it. */
  async #deliverLive(notice: Extract<NotifyPayload, { kind: "live" }>): Promise<void> {
    const { session_id, event_id } = notice;
    // The sender committed `event_id` before publishing: if its notice was lost or this bus never
    // tracked the session, read up to it so that the live mutation still follows its event.
    if (event_id > 0) await this.#deliverSession(session_id, event_id, event_id, []);
    if (!this.#wantsLive(session_id)) return;
    const position = this.#positions.get(session_id) ?? 0;
    if (position !== event_id) return;
    let mutation: SessionMutation;
    try {
      mutation = JSON.parse(notice.body) as SessionMutation;
    } catch (error) {
      this.#logger?.warn({ err: error, session_id }, "unreadable live notice dropped");
      return;
    }
    if (mutation.session_id !== session_id || mutation.event_id !== event_id || !isLiveMutation(mutation)) {
      this.#logger?.warn({ session_id, event_id }, "live notice that does not match its header dropped");
      return;
    }
    this.#listeners.emitLive(mutation);
  }

  /** After a reconnection: read every tracked session's and the feed's events published meanwhile. */
  #onReconnected(): void {
    const sessions = [...this.#positions.keys()];
    const catchUp = async () => {
      const deliveries: Promise<void>[] = [];
      if (sessions.length > 0) {
        const { rows } = await this.#pool.query<{ session_id: string; last_event_id: number }>(
          "SELECT session_id, last_event_id FROM sessions WHERE session_id = ANY($1::text[])",
          [sessions],
        );
        for (const row of rows) {
          deliveries.push(
            this.#queues.run(row.session_id, () =>
              this.#deliverSession(row.session_id, row.last_event_id, row.last_event_id, []),
            ),
          );
        }
      }
      const latest = await this.#latestInteractionId();
      deliveries.push(this.#queues.run(INTERACTION_STREAM, () => this.#deliverInteractions(latest, [])));
      for (const outcome of await Promise.allSettled(deliveries)) {
        if (outcome.status === "rejected")
          this.#logger?.error({ err: outcome.reason }, "event catch-up failed");
      }
    };
    catchUp()
      .catch((error: unknown) => this.#logger?.error({ err: error }, "event catch-up failed"))
      .finally(() => this.#listeners.emitResync());
  }

  /** Delivers the session's events up to `last` that were not delivered yet, in order (serialised per session). */
  async #deliverSession(
    session_id: string,
    first: number,
    last: number,
    known: SessionEvent[],
  ): Promise<void> {
    if (!this.#listeners.wantsSession(session_id)) {
      // Nobody here listens: no read. A later listener starts from its own replay of the log.
      this.#positions.delete(session_id);
      return;
    }
    const position = this.#positions.get(session_id) ?? first - 1;
    if (last <= position) return;
    const contiguous = continuesFrom(known, position, last);
    // A publisher's own objects are copied (once per event) before listeners see them; rows read
    // from the table are fresh objects already.
    const events = contiguous ? known : await this.#readSessionEvents(session_id, position, last);
    const prepare = contiguous ? structuredClone : undefined;
    for (const event of events) this.#listeners.emitSession(event, prepare);
    this.#track(session_id, Math.max(position, events.at(-1)?.event_id ?? position));
  }

  async #deliverInteractions(last: number, known: InteractionEvent[]): Promise<void> {
    const position = this.#interactionPosition;
    if (last <= position) return;
    if (!this.#listeners.wantsInteractions()) {
      // Nobody here follows the feed: no read. A later listener starts from its own replay of it.
      this.#interactionPosition = last;
      return;
    }
    const contiguous = continuesFrom(known, position, last);
    const events = contiguous ? known : await this.#readInteractionEvents(position, last);
    const prepare = contiguous ? structuredClone : undefined;
    for (const event of events) this.#listeners.emitInteraction(event, prepare);
    this.#interactionPosition = Math.max(position, events.at(-1)?.event_id ?? position);
  }

  async #latestInteractionId(): Promise<number> {
    const { rows } = await this.#pool.query<{ last: string }>(
      "SELECT COALESCE(MAX(event_id), 0)::text AS last FROM interaction_events",
    );
    return Number(rows[0]?.last ?? 0);
  }

  async #readSessionEvents(session_id: string, after: number, upTo: number): Promise<SessionEvent[]> {
    const statement = logEntriesBetween({ session_id, after, up_to: upTo });
    const { rows } = await this.#pool.query<SessionEventRow>(statement.text, statement.values);
    return rows.map(toSessionEvent);
  }

  async #readInteractionEvents(after: number, upTo: number): Promise<InteractionEvent[]> {
    const { rows } = await this.#pool.query<InteractionEventRow>(
      `SELECT e.event_id, e.kind, e.session_id, ${FEED_INTERACTION} AS interaction FROM interaction_events e
        WHERE e.event_id > $1 AND e.event_id <= $2 ORDER BY e.event_id`,
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
}

/** Whether `known` holds exactly the events after `position` up to `last`, in order (no read needed). */
function continuesFrom(known: readonly { event_id: number }[], position: number, last: number): boolean {
  return (
    known.length === last - position && known.every((event, index) => event.event_id === position + 1 + index)
  );
}
