// `npm run revision -w @parley/bench`: the cost of one revision (PrismaSessionStore.commit) and of
// respond → resumed across two runtimes (`lib/respond-resumed-cycles.ts`), next to the floor: a raw
// `pg` transaction + NOTIFY received on another connection. Uses DATABASE_URL's server, else a
// temporary embedded PostgreSQL; works in its own database, dropped at the end. Not a test: numbers
// vary with the machine's load.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, type ParleyDatabase, startEmbeddedPostgres } from "@parley/db";
import { createScratchDatabase } from "@parley/db/testing";
import type { SessionMessage } from "@parley/session-core";
import {
  buildAssistantMessage,
  buildSessionRecord,
  buildTextPart,
  messageCommitOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { measureRespondResumed } from "./lib/respond-resumed-cycles.js";
import { summarizeMs } from "./lib/stats.js";

const REVISIONS = Number(process.env.BENCH_REVISIONS ?? 500);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 40);

async function timed(count: number, run: (index: number) => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    await run(index);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** One assistant-message revision with a part mutation: the commit a streaming Turn makes most. */
async function benchRevision(database: ParleyDatabase): Promise<number[]> {
  const session_id = "session:bench-revision";
  await database.store.createSession(buildSessionRecord({ session_id }));
  let message: SessionMessage = buildAssistantMessage({ session_id, message_id: "message:1", sequence: 1 });
  await database.store.commit(messageCommitOf(message));
  return timed(REVISIONS, async (index) => {
    message = {
      ...message,
      revision: message.revision + 1,
      parts: [buildTextPart({ sequence: 1, text: `text ${index}`, state: "streaming" })],
    } as SessionMessage;
    await database.store.commit({ ...messageCommitOf(message), epoch: 0 });
  });
}

/** The floor: BEGIN, bump the counter, insert the log row, NOTIFY, COMMIT — until another connection hears it. */
async function benchRawFloor(url: string): Promise<{ transaction: number[]; notified: number[] }> {
  const writer = new pg.Client({ connectionString: url });
  const listener = new pg.Client({ connectionString: url });
  await Promise.all([writer.connect(), listener.connect()]);
  await writer.query(
    "INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at, approval_mode, effective_approval_mode) VALUES ('session:floor', 'o', 'a', 't', 0, 0, 'ask', 'ask')",
  );
  await listener.query("LISTEN bench_floor");
  let heard: (() => void) | undefined;
  listener.on("notification", () => heard?.());
  const transaction: number[] = [];
  const notified = await timed(REVISIONS, async (index) => {
    const arrived = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const start = performance.now();
    await writer.query("BEGIN");
    const { rows } = await writer.query<{ last_event_id: number }>(
      "UPDATE sessions SET last_event_id = last_event_id + 1 WHERE session_id = 'session:floor' RETURNING last_event_id",
    );
    await writer.query(
      "INSERT INTO session_events (session_id, event_id, mutation, created_at) VALUES ('session:floor', $1, $2, 0)",
      [rows[0]?.last_event_id, JSON.stringify({ index })],
    );
    await writer.query("SELECT pg_notify('bench_floor', $1)", [String(index)]);
    await writer.query("COMMIT");
    transaction.push(performance.now() - start);
    await arrived;
  });
  await Promise.all([writer.end(), listener.end()]);
  return { transaction, notified };
}

async function withServer<T>(run: (adminUrl: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return run(process.env.DATABASE_URL);
  const root = await mkdtemp(path.join(tmpdir(), "parley-bench-pg-"));
  await chmod(root, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), ephemeral: true });
  try {
    return await run(server.url);
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** respond → resumed on Postgres: A runs the Turn; B is another process's pool, LISTEN and leases. */
async function benchRespondResumed(url: string) {
  const a = await createDatabase({ url, migrate: false, holder_id: "bench:A" });
  const b = await createDatabase({ url, migrate: false, holder_id: "bench:B" });
  try {
    return await measureRespondResumed(a, b, { cycles: CYCLES });
  } finally {
    await a.close();
    await b.close();
  }
}

await withServer(async (adminUrl) => {
  const scratch = await createScratchDatabase(adminUrl, "parley_bench");
  try {
    const database = await createDatabase({ url: scratch.url });
    const revision = summarizeMs(await benchRevision(database));
    await database.close();
    const floor = await benchRawFloor(scratch.url);
    const respond = await benchRespondResumed(scratch.url);
    const results = {
      server: process.env.DATABASE_URL ? "DATABASE_URL" : "embedded PostgreSQL 18 (fsync off)",
      revision_commit: revision,
      raw_pg_transaction: summarizeMs(floor.transaction),
      raw_pg_transaction_notify_received: summarizeMs(floor.notified),
      respond_to_resumed_cross_process: summarizeMs(respond.cross),
      respond_to_resumed_same_process: summarizeMs(respond.same),
    };
    console.table(
      Object.fromEntries(Object.entries(results).filter(([, value]) => typeof value === "object")),
    );
    console.log(JSON.stringify(results));
  } finally {
    await scratch.drop();
  }
});
