import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, type ParleyDatabase, PostgresSessionListStates } from "@parley/db";
import { createTestDatabase, type TestDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { composeRuntime } from "@parley/session-core";
import { parseWorkspaceConfig } from "@parley/tools";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDefaultAgent } from "../agent/index.js";
import { createModelCatalog } from "../models/model-catalog.js";
import { type ApiServer, startApiServer } from "../server.js";
import { composeApiServices } from "../services.js";
import { InMemoryAuthStore } from "../testing/in-memory-auth-store.js";
import { createWorkspaceCatalog } from "../workspace-catalog.js";

/**
 * `session.list` costs a constant number of database statements per page, whatever its size (it
 * was two per session: about 400 for a page of 200), and shows what each session's `info()` shows.
 */
const SESSIONS = 60;
const ASKING = 3;

let testDatabase: TestDatabase;
let database: ParleyDatabase;
let server: ApiServer;
/** Owns only idle sessions: nothing runs in the background while its pages are counted. */
let client: ParleyClient;
/** Owns sessions whose Turns wait for approval, and a closed one. */
let asker: ParleyClient;
let closeRuntime: () => Promise<void>;
let workspace_root: string;
let statements = 0;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await createDatabase({ url: testDatabase.url, migrate: false });
  workspace_root = await mkdtemp(path.join(tmpdir(), "parley-list-ws-"));
  const models = createModelCatalog({ PARLEY_MODEL: "demo" }, {});
  const agent = createDefaultAgent({ model: models.default_model.model, models });
  const workspaces = createWorkspaceCatalog(
    parseWorkspaceConfig({ PARLEY_WORKSPACE_ROOT: workspace_root }, process.cwd()),
  );
  const composed = composeRuntime({ adapters: database, agent, workspaces });
  closeRuntime = composed.close;
  const auth = new InMemoryAuthStore();
  const user = await auth.createUser({ name: "lister", role: "member" });
  server = await startApiServer({
    services: composeApiServices({
      runtime: composed.runtime,
      // The database's store and bus, with an in-memory auth store for the test's two users.
      adapters: { store: database.store, bus: database.bus, auth },
      agent,
      workspaces,
      models,
      logger: pino({ level: "silent" }),
      session_states: new PostgresSessionListStates(database.pool),
    }),
    port: 0,
    host: "127.0.0.1",
    checkHealth: async () => true,
  });
  client = createParleyClient({ url: server.url, token: await auth.issueToken(user.user_id) });
  const askerUser = await auth.createUser({ name: "asker", role: "member" });
  asker = createParleyClient({ url: server.url, token: await auth.issueToken(askerUser.user_id) });
  // Every statement of the store and the page's state goes through this pool: count its queries
  // and the connections taken for anything else (pg's own `query` takes one too: not counted twice).
  const query = database.pool.query.bind(database.pool) as (...args: unknown[]) => unknown;
  const connect = database.pool.connect.bind(database.pool) as (...args: unknown[]) => unknown;
  let insideQuery = false;
  Object.assign(database.pool, {
    query: (...args: unknown[]) => {
      // Not this call's, on timers of their own: bus notices of earlier commits (sent after them,
      // batched) and the runtime's sweep for queued commands (`session_commands`).
      const [statement] = args;
      const text = typeof statement === "string" ? statement : (statement as { text?: string }).text;
      if (!/notify|session_commands/i.test(text ?? "")) statements++;
      insideQuery = true;
      try {
        return query(...args);
      } finally {
        insideQuery = false;
      }
    },
    connect: (...args: unknown[]) => {
      if (!insideQuery) statements++;
      return connect(...args);
    },
  });

  for (let index = 0; index < SESSIONS; index++) await client.sessions.create({ title: `plain ${index}` });
});

afterAll(async () => {
  await client?.close();
  await asker?.close();
  await server?.close();
  await closeRuntime?.();
  await database?.close();
  await testDatabase?.drop();
  if (workspace_root) await rm(workspace_root, { recursive: true, force: true });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function statementsOf<T>(call: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const before = statements;
  const result = await call();
  return { result, statements: statements - before };
}

it("a page costs two statements whatever its size: the rows, then their state", async () => {
  const small = await statementsOf(() => client.sessions.list({ limit: 5 }));
  const large = await statementsOf(() => client.sessions.list({ limit: 100 }));
  expect(small.result.items).toHaveLength(5);
  expect(large.result.items).toHaveLength(SESSIONS);
  expect(small.statements).toBe(2);
  expect(large.statements).toBe(2);
});

// After the counting: these sessions' Turns write in the background while they park.
it("shows each session as its info() does: pending interactions and state", async () => {
  // Sessions with a pending approval: their Turn waits for a person.
  for (let index = 0; index < ASKING; index++) {
    const session = await asker.sessions.create({ title: `asking ${index}`, approval_mode: "ask" });
    await session.prompt("run ls");
    await waitFor(async () => (await session.info()).pending_interactions === 1);
  }
  const closed = await asker.sessions.create({ title: "closed" });
  await closed.close();
  const page = await asker.sessions.list({ limit: 100 });
  const asking = page.items.filter((item) => item.title.startsWith("asking"));
  expect(asking.map((item) => [item.pending_interactions, item.state])).toEqual(
    Array.from({ length: ASKING }, () => [1, "running"]),
  );
  expect(page.items.find((item) => item.title === "closed")?.state).toBe("closed");
  const plain = await client.sessions.list({ limit: 100 });
  for (const item of [...page.items, ...plain.items.slice(0, 5)]) {
    const session = (item.title.startsWith("plain") ? client : asker).session(item.session_id);
    expect(item).toEqual(await session.info());
  }
});
