import type { ParleyDatabase } from "@parley/db";
import type { AgentDefinition } from "@parley/session-core";
import { chooseShellSandbox, parseWorkspaceConfig } from "@parley/tools";
import type { Logger } from "pino";
import { createDefaultAgent } from "./agent/index.js";
import { openDatabase } from "./database-connection.js";
import type { Env } from "./env.js";
import { ApiMetrics } from "./metrics/api-metrics.js";
import { createModelCatalog } from "./models/index.js";
import type { ModelCatalog } from "./models/model-catalog.js";
import { createWorkspaceCatalog, type WorkspaceCatalog } from "./workspace-catalog.js";

/** What the environment names, built and connected, before anything is wired together. */
export interface ApiAdapters {
  /** Migrated; its store, bus and leases are the runtime's. */
  database: ParleyDatabase;
  /** The default agent, with the default model and the chosen shell sandbox. */
  agent: AgentDefinition;
  models: ModelCatalog;
  workspaces: WorkspaceCatalog;
  /** Observes the database's commits from the start (`GET /metrics`). */
  metrics: ApiMetrics;
  /** Closes the database (releasing leases), then stops an embedded Postgres this process started. */
  close(): Promise<void>;
}

/**
 * env → the adapters: model catalog and default agent, workspaces, shell sandbox, metrics and the
 * database (migrated). Configuration errors (a bad PARLEY_MODEL, a missing workspace) fail before
 * any database work.
 */
export async function openApiAdapters(env: Env, logger: Logger): Promise<ApiAdapters> {
  const shell = await chooseShellSandbox(env);
  logger[shell.level](shell.message);
  const models = createModelCatalog(env, env);
  const agent = createDefaultAgent({ model: models.default_model.model, models, shell: shell.sandbox });
  const workspaces = createWorkspaceCatalog(parseWorkspaceConfig(env, process.cwd()));
  const metrics = new ApiMetrics();
  const opened = await openDatabase(env, logger, { commit_observer: metrics.commitObserver });
  return { database: opened.database, agent, models, workspaces, metrics, close: () => opened.close() };
}
