import { SessionRuntime } from "@parley/session-core";
import { chooseShellSandbox, parseWorkspaceConfig } from "@parley/tools";
import type { Logger } from "pino";
import { createDefaultAgent } from "./agent/index.js";
import { openDatabase } from "./database-connection.js";
import type { Env } from "./env.js";
import { noticeFaults } from "./faults/notice-faults.js";
import { ApiMetrics } from "./metrics/api-metrics.js";
import { createModelCatalog } from "./models/index.js";
import { type RecoveryLoop, startRecoveryLoop } from "./recovery-loop.js";
import type { ApiServices } from "./services.js";
import { createWorkspaceCatalog } from "./workspace-catalog.js";

export interface ComposedApi {
  services: ApiServices;
  /** For `startApiServer({ metrics })`: `GET /metrics`. */
  metrics: ApiMetrics;
  checkHealth(): Promise<boolean>;
  /** Stops recovery, releases every lease (`runtime.shutdown()`), closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root's wiring: env → database (migrated) → model and default agent → runtime,
 * with recovery at startup and then periodically.
 */
export async function composeApi(env: Env, logger: Logger): Promise<ComposedApi> {
  // Configuration errors (a bad PARLEY_MODEL, a missing workspace) fail before any database work.
  const shell = await chooseShellSandbox(env);
  logger[shell.level](shell.message);
  const models = createModelCatalog(env, env);
  const agent = createDefaultAgent({ model: models.default_model.model, models, shell: shell.sandbox });
  const workspaces = createWorkspaceCatalog(parseWorkspaceConfig(env, process.cwd()));
  const metrics = new ApiMetrics();
  const faultMode = env.PARLEY_FAULT_DROP_NOTICES;
  if (faultMode) logger.warn({ mode: faultMode }, "FAULT HOOK on: bus notices are dropped (tests only)");
  const opened = await openDatabase(env, logger, {
    commit_observer: metrics.commitObserver,
    ...(faultMode
      ? {
          bus_faults: noticeFaults(faultMode, (notice) =>
            logger.warn({ notice }, "fault: bus notice dropped"),
          ),
        }
      : {}),
  });
  const { store, bus, leases, auth, inbox } = opened.database;
  metrics.readStatsFrom(opened.database.stats);
  // The bus-lag gauge, fed by one listener of this process until the bus reports it itself.
  const stopLagProbe = bus.subscribe({
    onSessionEvent: (event) => metrics.recordBusLag((Date.now() - event.mutation.created_at) / 1000),
  });
  const runtime = new SessionRuntime({
    store,
    bus,
    leases,
    agents: { get: (agent_id) => (agent_id === agent.agent_id ? agent : undefined) },
    resolveWorkspace: (session) => workspaces.resolve(session),
    logger: logger.child({ component: "runtime" }),
    park_waiting_turns: env.PARLEY_PARK_WAITING_TURNS === "on",
  });

  let recovery: RecoveryLoop | null = null;
  try {
    await runtime.recover();
    recovery = startRecoveryLoop({ runtime, interval_ms: env.PARLEY_RECOVER_INTERVAL_MS, logger });
  } catch (error) {
    stopLagProbe();
    await runtime.shutdown().catch(() => undefined);
    await opened.close();
    throw error;
  }

  const services: ApiServices = {
    runtime,
    store,
    bus,
    auth,
    inbox,
    workspaces,
    models,
    agent_id: agent.agent_id,
    logger,
  };
  return {
    services,
    metrics,
    checkHealth: () => opened.database.ping(),
    async close() {
      stopLagProbe();
      await recovery?.stop();
      await runtime.shutdown();
      await opened.close();
    },
  };
}
