// `npm run bench -w @parley/db`: the cost of one revision transaction (PrismaSessionStore.commit)
// and of respond → resumed across two runtimes, next to the floor: a raw `pg` transaction + NOTIFY
// received on another connection. Uses DATABASE_URL's server, else a temporary embedded PostgreSQL;
// works in its own database, dropped at the end. Not a test: numbers vary with the machine's load.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { define_agent_tool, type Session, type SessionMessage, SessionRuntime } from "@parley/session-core";
import {
  buildAssistantMessage,
  buildSessionRecord,
  buildTextPart,
  createScriptedModel,
  messageCommitOf,
} from "@parley/session-core/testing";
import pg from "pg";
import { z } from "zod";
import { createDatabase, type ParleyDatabase } from "../src/create-database.js";
import { quoteIdentifier, withDatabaseName } from "../src/database-url.js";
import { startEmbeddedPostgres } from "../src/embedded-postgres.js";
import { migrateDatabase } from "../src/migrations/migrate-database.js";

const REVISIONS = Number(process.env.BENCH_REVISIONS ?? 500);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 40);

interface Summary {
  n: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
}

function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { n: sorted.length, mean_ms: round(mean), p50_ms: round(at(0.5)), p99_ms: round(at(0.99)) };
}

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

/**
 * respond → resumed: A runs the Turn and waits in the tool's approval; `respond` goes through B (its
 * own pool, LISTEN connection and leases, as another process would). Measured from B's respond() to
 * the tool continuing in A, and (same-process) from A's respond() to the tool continuing.
 */
async function benchRespondResumed(url: string): Promise<{ cross: number[]; local: number[] }> {
  const a = await createDatabase({ url, migrate: false, holder_id: "bench:A" });
  const b = await createDatabase({ url, migrate: false, holder_id: "bench:B" });
  let resumed: ((at: number) => void) | undefined;
  const tool = define_agent_tool({
    description: "Waits for approval, then notes when it continued.",
    input_schema: z.object({}),
    async execute(_input, context) {
      await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: "gated",
        payload: { operation: "tool" },
      });
      resumed?.(performance.now());
      return { ok: true };
    },
  });
  const model = createScriptedModel((call) =>
    call.prompt.at(-1)?.role === "tool"
      ? [{ text: "ok" }]
      : [{ tool_call: { id: `call_${call.index}`, name: "gated", input: {} } }],
  );
  const runtime = (database: ParleyDatabase) =>
    new SessionRuntime({
      store: database.store,
      bus: database.bus,
      leases: database.leases,
      agents: { get: (agent_id) => ({ agent_id, model, tools: { gated: tool } }) },
    });
  const runtimeA = runtime(a);
  const runtimeB = runtime(b);
  const sessionA = await runtimeA.createSession({ owner_id: "bench", agent_id: "agent:bench" });
  const sessionB = (await runtimeB.openSession(sessionA.id)) as Session;

  const cycle = async (responder: Session): Promise<number> => {
    const turn = await sessionA.prompt({ query: "go" });
    let pending = (await sessionA.interactions())[0];
    while (!pending) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      pending = (await sessionA.interactions())[0];
    }
    const continued = new Promise<number>((resolve) => {
      resumed = resolve;
    });
    const start = performance.now();
    await responder.respond({
      interaction_id: pending.interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const elapsed = (await continued) - start;
    await turn.finished;
    return elapsed;
  };
  const cross: number[] = [];
  const local: number[] = [];
  for (let index = 0; index < CYCLES; index += 1) {
    cross.push(await cycle(sessionB));
    local.push(await cycle(sessionA));
  }
  await runtimeA.shutdown();
  await runtimeB.shutdown();
  await a.close();
  await b.close();
  return { cross, local };
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

await withServer(async (adminUrl) => {
  const name = `parley_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
  const url = withDatabaseName(adminUrl, name);
  try {
    await migrateDatabase(url);
    const database = await createDatabase({ url, migrate: false });
    const revision = summarize(await benchRevision(database));
    await database.close();
    const floor = await benchRawFloor(url);
    const respond = await benchRespondResumed(url);
    const results = {
      server: process.env.DATABASE_URL ? "DATABASE_URL" : "embedded PostgreSQL 18 (fsync off)",
      revision_commit: revision,
      raw_pg_transaction: summarize(floor.transaction),
      raw_pg_transaction_notify_received: summarize(floor.notified),
      respond_to_resumed_cross_process: summarize(respond.cross),
      respond_to_resumed_same_process: summarize(respond.local),
    };
    console.table(
      Object.fromEntries(Object.entries(results).filter(([, value]) => typeof value === "object")),
    );
    console.log(JSON.stringify(results));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    await admin.end();
  }
});
