import type { SessionCommit } from "@parley/session-core";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What the metrics read over the whole database at scrape time (`@parley/db`'s `PrismaOperatorStats`). */
export interface OperatorStats {
  pendingByType(): Promise<{ type: string; count: number; oldest_created_at: number }[]>;
  turns(): Promise<{ running: number; waiting: number }>;
}

/**
 * The database gauges are read at most this often, whatever the scrape rate: a scrape in between
 * serves the last reading, so a loop of `curl` costs the pool two queries per interval, not per call.
 */
export const DATABASE_GAUGES_INTERVAL_MS = 5_000;

/** Seconds buckets from 0.5 ms to 10 s: a commit is ~1 ms on a quiet box, a queued one seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The API's Prometheus metrics (`GET /metrics`, text format). Counters and histograms are this
 * process's; the pending-interaction and Turn gauges are read from the database, at most every
 * `DATABASE_GAUGES_INTERVAL_MS` (the oldest-pending age is recomputed from that reading at each
 * scrape), so every instance reports the same cluster-wide values (aggregate them with `max`, not
 * `sum`).
 */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly #commits: Counter<"published">;
  readonly #commitSeconds: Histogram;
  readonly #respondResumedSeconds: Histogram;
  readonly #busLag: Gauge;
  #webSocketClients: () => number = () => 0;
  #liveNotCarried: () => number = () => 0;
  #stats: OperatorStats | null = null;

  constructor(options: { now?: () => number } = {}) {
    const now = options.now ?? Date.now;
    const registers = [this.registry];
    this.#commits = new Counter({
      name: "parley_commits_total",
      help: "Revisions committed by this instance; published: whether it appended a replay-log event",
      labelNames: ["published"],
      registers,
    });
    this.#commitSeconds = new Histogram({
      name: "parley_commit_duration_seconds",
      help: "Time of one revision's commit statement, as this instance waited for it",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#respondResumedSeconds = new Histogram({
      name: "parley_respond_resumed_seconds",
      help: "From an answer's commit (resolved_at) to the waiting tool continuing with it (resumed_at)",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#busLag = new Gauge({
      name: "parley_event_bus_lag_seconds",
      help: "From a mutation's creation to its delivery by the event bus in this instance (latest event)",
      registers,
    });
    const webSocketClients = () => this.#webSocketClients();
    new Gauge({
      name: "parley_websocket_clients",
      help: "WebSocket connections open on this instance",
      registers,
      collect() {
        this.set(webSocketClients());
      },
    });
    const liveNotCarried = () => this.#liveNotCarried();
    new Counter({
      name: "parley_live_mutations_not_carried_total",
      help: "Live mutations (§10.6) too large for the bus transport (NOTIFY: 8,000 bytes): delivered to this instance's subscribers only",
      registers,
      collect() {
        this.reset();
        this.inc(liveNotCarried());
      },
    });
    const pending = new Gauge({
      name: "parley_pending_interactions",
      help: "Interactions waiting for a person, by type (whole database)",
      labelNames: ["type"],
      registers,
    });
    const oldest = new Gauge({
      name: "parley_oldest_pending_interaction_age_seconds",
      help: "Age of the oldest pending interaction (whole database); 0 when none",
      registers,
    });
    const turns = new Gauge({
      name: "parley_turns",
      help: "Open Turns by state (whole database): running, or waiting for a person",
      labelNames: ["state"],
      registers,
    });
    // One read of the database per interval, shared by the three database gauges and by every
    // scrape that arrives while it runs.
    let reading: { at: number; done: Promise<number | null> } | null = null;
    const readDatabase = (stats: OperatorStats): Promise<number | null> => {
      if (reading === null || now() - reading.at >= DATABASE_GAUGES_INTERVAL_MS) {
        const started = { at: now(), done: Promise.resolve<number | null>(null) };
        started.done = Promise.all([stats.pendingByType(), stats.turns()]).then(
          ([byType, counts]) => {
            pending.reset();
            for (const row of byType) pending.set({ type: row.type }, row.count);
            turns.set({ state: "running" }, counts.running);
            turns.set({ state: "waiting" }, counts.waiting);
            return byType.length === 0 ? null : Math.min(...byType.map((row) => row.oldest_created_at));
          },
          (error: unknown) => {
            // A failed reading is retried by the next scrape, not served for the interval.
            if (reading === started) reading = null;
            throw error;
          },
        );
        reading = started;
      }
      return reading.done;
    };
    this.#collectDatabase = async () => {
      const stats = this.#stats;
      if (!stats) return;
      const first = await readDatabase(stats);
      oldest.set(first === null ? 0 : Math.max(0, (now() - first) / 1000));
    };
  }

  readonly #collectDatabase: () => Promise<void>;

  /** The store's commit hook (`createDatabase({ commit_observer })`). */
  readonly commitObserver = {
    committed: (commit: SessionCommit, seconds: number): void => {
      this.#commits.inc({ published: commit.mutation ? "true" : "false" });
      this.#commitSeconds.observe(seconds);
      for (const record of commit.interactions ?? []) {
        const { resolved_at, resumed_at } = record.interaction;
        if (resolved_at !== undefined && resumed_at !== undefined) {
          this.#respondResumedSeconds.observe(Math.max(0, resumed_at - resolved_at) / 1000);
        }
      }
    },
  };

  /** The event-bus lag hook: the bus (or a listener on it) reports each delivery's delay. */
  recordBusLag(seconds: number): void {
    this.#busLag.set(Math.max(0, seconds));
  }

  /** Where the database gauges are read from (set once the database is open). */
  readStatsFrom(stats: OperatorStats): void {
    this.#stats = stats;
  }

  /** Where the WebSocket client count comes from (the server's `WebSocketServer`). */
  countWebSocketClientsWith(count: () => number): void {
    this.#webSocketClients = count;
  }

  /** Where the count of live mutations kept in this process comes from (the bus). */
  countLiveNotCarriedWith(count: () => number): void {
    this.#liveNotCarried = count;
  }

  /** The Prometheus text exposition, the database gauges at most `DATABASE_GAUGES_INTERVAL_MS` old. */
  async render(): Promise<string> {
    await this.#collectDatabase();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
