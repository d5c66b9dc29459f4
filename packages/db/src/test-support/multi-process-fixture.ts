import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { InteractionRecord, SessionEvent, TurnMutation } from "@parley/session-core";
import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { createPrismaClient } from "../prisma-client.js";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { startTestBus, type TestBus, type TestBusKind } from "../testing/test-bus.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { RuntimeWorker } from "./runtime-worker-client.js";

/** A fresh database, a notes file for the side effects, and the worker processes started on them. */
export class MultiProcessFixture {
  readonly workers: RuntimeWorker[] = [];

  private constructor(
    readonly database: TestDatabase,
    readonly directory: string,
    readonly pool: pg.Pool,
    readonly prisma: PrismaClient,
    readonly store: PrismaSessionStore,
    readonly bus: TestBus,
  ) {}

  /** `bus`: the bus the workers use (default NOTIFY); the fixture starts and stops its server. */
  static async create(bus: TestBusKind = "notify"): Promise<MultiProcessFixture> {
    const testBus = await startTestBus(bus);
    const database = await createTestDatabase();
    const directory = await mkdtemp(path.join(tmpdir(), "parley-multi-process-"));
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const prisma = createPrismaClient(pool);
    return new MultiProcessFixture(database, directory, pool, prisma, new PrismaSessionStore(pool), testBus);
  }

  get effectsFile(): string {
    return path.join(this.directory, "notes.txt");
  }

  async startWorker(
    name: string,
    options: { recover_every_ms?: number; park_waiting_turns?: boolean } = {},
  ): Promise<RuntimeWorker> {
    const worker = await RuntimeWorker.start({
      name,
      database_url: this.database.url,
      effects_file: this.effectsFile,
      bus_url: this.bus.bus_url,
      ...options,
    });
    this.workers.push(worker);
    return worker;
  }

  /** Lines the tool appended: one per executed side effect, `<line> by <process>`. */
  async effects(): Promise<string[]> {
    const text = await readFile(this.effectsFile, "utf8").catch(() => "");
    return text.split("\n").filter((line) => line.length > 0);
  }

  /** Polls until `probe` yields a value (state written by another process has no local signal). */
  async eventually<T>(probe: () => Promise<T | null | undefined | false>): Promise<T> {
    for (;;) {
      const value = await probe();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  pendingInteraction(session_id: string): Promise<InteractionRecord> {
    return this.eventually(async () => (await this.store.listPendingInteractions(session_id))[0]);
  }

  async events(session_id: string): Promise<SessionEvent[]> {
    return this.store.listEvents(session_id, 0, 10_000);
  }

  /** The committed `turn` finish mutation of `turn_id`, once there is one. */
  turnFinish(session_id: string, turn_id: string): Promise<TurnMutation> {
    return this.eventually(async () => {
      const events = await this.events(session_id);
      const finish = events
        .map((event) => event.mutation)
        .find(
          (mutation) =>
            mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id,
        );
      return finish?.variant === "turn" ? finish : null;
    });
  }

  async dispose(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.kill()));
    await this.prisma.$disconnect();
    await this.pool.end();
    await this.database.drop();
    await this.bus.stop();
    await rm(this.directory, { recursive: true, force: true });
  }
}

/** Event ids 1..n with nothing missing, nothing repeated. */
export function consecutiveFromOne(events: SessionEvent[]): number[] {
  return Array.from({ length: events.length }, (_, index) => index + 1);
}
