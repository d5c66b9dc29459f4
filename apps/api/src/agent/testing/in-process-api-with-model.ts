import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import {
  InMemoryEventBus,
  InMemoryLeaseRegistry,
  InMemorySessionStore,
  SessionRuntime,
} from "@parley/session-core";
import { parseWorkspaceConfig } from "@parley/tools";
import { pino } from "pino";
import { catalogOfModels } from "../../models/model-catalog.js";
import { type ApiServer, startApiServer } from "../../server.js";
import { InMemoryAuthStore } from "../../testing/in-memory-auth-store.js";
import { createWorkspaceCatalog } from "../../workspace-catalog.js";
import { createDefaultAgent } from "../create-default-agent.js";

export interface InProcessApiWithModel {
  url: string;
  /** The named workspace `project` (sessions choose it with `workspace_id: "project"`). */
  project_root: string;
  /** A token of a new member. */
  memberToken(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real HTTP + WebSocket API server in this process, over the in-memory adapters, serving the
 * default agent with the given model — like `startInMemoryApi` (which always uses the demo model),
 * so a provider model can be driven through the API without Postgres.
 */
export async function startInProcessApiWithModel(model: LanguageModelV3): Promise<InProcessApiWithModel> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-api-model-")));
  const project_root = path.join(base, "project");
  await mkdir(project_root);
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const models = catalogOfModels([{ model_id: model.modelId, label: model.modelId, model }]);
  const agent = createDefaultAgent({ model, models });
  const workspaces = createWorkspaceCatalog(
    parseWorkspaceConfig(
      { PARLEY_WORKSPACES: `project=${project_root}`, PARLEY_WORKSPACE_ROOT: path.join(base, "sessions") },
      base,
    ),
  );
  const runtime = new SessionRuntime({
    store,
    bus,
    leases: new InMemoryLeaseRegistry({ epochs: store }).forProcess("api"),
    agents: { get: (agent_id) => (agent_id === agent.agent_id ? agent : undefined) },
    resolveWorkspace: (session) => workspaces.resolve(session),
  });
  const auth = new InMemoryAuthStore();
  const server: ApiServer = await startApiServer({
    services: {
      runtime,
      store,
      bus,
      auth,
      workspaces,
      models,
      agent_id: agent.agent_id,
      logger: pino({ level: "silent" }),
    },
    port: 0,
    host: "127.0.0.1",
    checkHealth: async () => true,
  });
  return {
    url: server.url,
    project_root,
    async memberToken(name) {
      const user = await auth.createUser({ name, role: "member" });
      return auth.issueToken(user.user_id);
    },
    async close() {
      await server.close();
      await runtime.shutdown();
      await rm(base, { recursive: true, force: true });
    },
  };
}
