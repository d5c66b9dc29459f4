import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ApiServer,
  composeApiServices,
  createWorkspaceCatalog,
  parseEnv,
  runtimeSettingsFromEnv,
  type ServiceAdapters,
  startApiServer,
  type WorkspaceCatalog,
} from "@parley/api";
import { createDatabase, migrateDatabase } from "@parley/db";
import { createScratchDatabase, type ScratchDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import {
  type AgentDefinition,
  composeRuntime,
  type SessionRuntime,
  type SessionRuntimeApi,
} from "@parley/session-core";
import pino from "pino";
import {
  BENCH_AGENT_ID,
  BENCH_API_LIMITS,
  BENCH_MODELS,
  createBenchAgent,
  ToolProbe,
} from "./bench-agent.js";
import { within } from "./stats.js";

export type { ParleyClient };

type Database = Awaited<ReturnType<typeof createDatabase>>;

/**
 * One Parley API server composed in this process exactly as `apps/api/src/main.ts` composes it
 * (Postgres store, NOTIFY bus, advisory-lock leases, the tRPC server), but serving the bench agent
 * (a zero-latency scripted model and a tool that asks for approval), so that times can be taken
 * inside the tool. Clients connect over real loopback WebSockets.
 */
/** What every bench stack offers: a served API, the tool probe, and SDK clients. */
export interface BenchStack {
  server: ApiServer;
  probe: ToolProbe;
  /** A new SDK client (its own WebSocket) signed in as the bench admin. */
  client(): ParleyClient;
  close(): Promise<void>;
}

export interface ParleyStack extends BenchStack {
  scratch: ScratchDatabase;
  database: Database;
  runtime: SessionRuntime;
  adminToken: string;
  adminUserId: string;
}

/**
 * Components that failed to close (e.g. a shutdown that never finished). Closing is not what the
 * bench measures, so a failed close does not discard a suite's figures; the report lists it.
 */
export const closeProblems: string[] = [];

async function closeStep(what: string, step: () => Promise<void>): Promise<void> {
  try {
    await within(step(), 60_000, what);
  } catch (error) {
    closeProblems.push(`${what}: ${String(error)}`);
    console.error(`[bench] ${what} failed: ${String(error)}`);
  }
}

/** Errors go to stderr: a bench that hides why a request failed measures nothing. */
export function benchLogger() {
  return pino({ level: process.env.BENCH_LOG_LEVEL ?? "error" }, pino.destination(2));
}

/** The API server both bench stacks run: the bench agent's services over `adapters`, the bench's limits. */
export function startBenchApiServer(options: {
  runtime: SessionRuntimeApi;
  adapters: ServiceAdapters;
  workspaces: WorkspaceCatalog;
  port: number;
}): Promise<ApiServer> {
  return startApiServer({
    services: composeApiServices({
      runtime: options.runtime,
      adapters: options.adapters,
      agent: { agent_id: BENCH_AGENT_ID },
      workspaces: options.workspaces,
      models: BENCH_MODELS,
      logger: benchLogger(),
    }),
    port: options.port,
    host: "127.0.0.1",
    limits: BENCH_API_LIMITS,
    checkHealth: async () => true,
  });
}

/** A runtime over an existing, migrated database, as one API process has it (no server). */
export interface ParleyRuntime {
  database: Database;
  runtime: SessionRuntime;
  probe: ToolProbe;
  workspaces: WorkspaceCatalog;
  close(): Promise<void>;
}

export async function startParleyRuntime(
  databaseUrl: string,
  options: { bus_url?: string | undefined } = {},
): Promise<ParleyRuntime> {
  const logger = benchLogger();
  const database = await createDatabase({ url: databaseUrl, logger, bus_url: options.bus_url });
  const probe = new ToolProbe();
  const agent: AgentDefinition = createBenchAgent(probe);
  const workspaceRoot = mkdtempSync(join(tmpdir(), "parley-bench-ws-"));
  const workspaces = createWorkspaceCatalog({ session_root: workspaceRoot, named: new Map() });
  // As the API composes it with its defaults (recovery loop on, parking, stream checkpoints): every
  // background loop runs while the bench measures.
  const settings = runtimeSettingsFromEnv(parseEnv({}));
  const composed = composeRuntime({ adapters: database, agent, workspaces, logger, ...settings });
  // Startup recovery, then the liveness pass every second, as `apps/api` starts it.
  await composed.start();
  const { runtime } = composed;
  return {
    database,
    runtime,
    probe,
    workspaces,
    close: async () => {
      await closeStep("runtime close", () => composed.close());
      await closeStep("database.close()", () => database.close());
      rmSync(workspaceRoot, { recursive: true, force: true });
    },
  };
}

/** `scratch` given: the caller owns (and drops) that database; otherwise the stack makes and drops one. */
export async function startParleyStack(options: {
  serverUrl: string;
  port: number;
  scratch?: ScratchDatabase;
  /** `PARLEY_BUS` (unset: NOTIFY). */
  bus_url?: string | undefined;
}): Promise<ParleyStack> {
  const scratch = options.scratch ?? (await createScratchDatabase(options.serverUrl, "parley_bench"));
  await migrateDatabase(scratch.url);
  const {
    database,
    runtime,
    probe,
    workspaces,
    close: closeRuntime,
  } = await startParleyRuntime(scratch.url, {
    bus_url: options.bus_url,
  });
  const server = await startBenchApiServer({ runtime, adapters: database, workspaces, port: options.port });
  const admin = await database.auth.ensureUser({ name: "bench-admin", role: "admin" });
  const adminToken = await database.auth.issueToken(admin.user_id);
  const clients: ParleyClient[] = [];

  return {
    scratch,
    database,
    runtime,
    server,
    probe,
    adminToken,
    adminUserId: admin.user_id,
    client: () => {
      const client = createParleyClient({ url: server.url, token: adminToken });
      clients.push(client);
      return client;
    },
    close: async () => {
      await closeStep(
        "SDK clients close()",
        async () => void (await Promise.all(clients.map((client) => client.close()))),
      );
      await closeStep("server.close()", () => server.close());
      await closeRuntime();
      if (!options.scratch) await closeStep("drop the scratch database", () => scratch.drop());
    },
  };
}
