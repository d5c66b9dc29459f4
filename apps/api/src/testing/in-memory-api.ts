import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AuthUser } from "@parley/session-core";
import {
  composeRuntime,
  InMemoryEventBus,
  InMemoryLeaseRegistry,
  InMemorySessionStore,
} from "@parley/session-core";
import { parseWorkspaceConfig } from "@parley/tools";
import { pino } from "pino";
import { createDefaultAgent } from "../agent/index.js";
import { parseEnv, runtimeSettingsFromEnv } from "../env.js";
import { catalogOfModels, createModelCatalog } from "../models/model-catalog.js";
import { type ApiServer, startApiServer } from "../server.js";
import { type ApiServices, composeApiServices } from "../services.js";
import { createWorkspaceCatalog } from "../workspace-catalog.js";
import { InMemoryAuthStore } from "./in-memory-auth-store.js";

export interface InMemoryApi {
  server: ApiServer;
  services: ApiServices;
  workspace_root: string;
  /** Creates a user and returns it with a fresh token. */
  addUser(name: string, role: AuthUser["role"]): Promise<AuthUser & { token: string }>;
  close(): Promise<void>;
}

/**
 * The real HTTP + WebSocket server and router in this process, over session-core's in-memory
 * adapters and the default agent, composed as the server composes them (`composeRuntime`): fast
 * tests of the API surface without Postgres. The agent's model is the demo model (and
 * `PARLEY_MODELS`), or `model` alone.
 */
export async function startInMemoryApi(
  options: { PARLEY_WORKSPACES?: string; PARLEY_MODELS?: string; model?: LanguageModelV3 } = {},
): Promise<InMemoryApi> {
  const workspace_root = await mkdtemp(path.join(tmpdir(), "parley-api-ws-"));
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const leases = new InMemoryLeaseRegistry({ epochs: store }).forProcess("api");
  const { model } = options;
  const models = model
    ? catalogOfModels([{ model_id: model.modelId, label: model.modelId, model }])
    : createModelCatalog({ PARLEY_MODEL: "demo", PARLEY_MODELS: options.PARLEY_MODELS }, {});
  const agent = createDefaultAgent({ model: models.default_model.model, models });
  const workspaces = createWorkspaceCatalog(
    parseWorkspaceConfig(
      { PARLEY_WORKSPACE_ROOT: workspace_root, PARLEY_WORKSPACES: options.PARLEY_WORKSPACES },
      process.cwd(),
    ),
  );
  // The server's runtime settings at their defaults (parking on, the recovery loop every 1 s) and
  // its startup: what runs in production is what these tests run (DESIGN §10.7).
  const {
    runtime,
    start,
    close: closeRuntime,
  } = composeRuntime({
    adapters: { store, bus, leases },
    agent,
    workspaces,
    ...runtimeSettingsFromEnv(parseEnv({})),
  });
  await start();
  const auth = new InMemoryAuthStore();
  const services = composeApiServices({
    runtime,
    adapters: { store, bus, auth },
    agent,
    workspaces,
    models,
    logger: pino({ level: "silent" }),
  });
  const server = await startApiServer({
    services,
    port: 0,
    host: "127.0.0.1",
    checkHealth: async () => true,
  });
  return {
    server,
    services,
    workspace_root,
    async addUser(name, role) {
      const user = await auth.createUser({ name, role });
      return { ...user, token: await auth.issueToken(user.user_id) };
    },
    async close() {
      await server.close();
      await closeRuntime();
      await rm(workspace_root, { recursive: true, force: true });
    },
  };
}
