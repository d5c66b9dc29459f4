import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorkspaceCatalog } from "@parley/api";
import { InMemoryAuthStore } from "@parley/api/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import {
  composeRuntime,
  InMemoryEventBus,
  InMemoryLeaseRegistry,
  InMemorySessionStore,
  InMemoryTurnLeaseManager,
} from "@parley/session-core";
import { createBenchAgent, ToolProbe } from "./bench-agent.js";
import { type BenchStack, startBenchApiServer } from "./parley-stack.js";

/**
 * The same API server and runtime as `startParleyStack`, over session-core's in-memory store, bus
 * and leases instead of Postgres. The difference between the two stacks' figures is what
 * persistence costs; what remains is the runtime, tRPC and the WebSocket.
 */
export async function startMemoryStack(options: { port: number }): Promise<BenchStack> {
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const leases = new InMemoryTurnLeaseManager(new InMemoryLeaseRegistry({ epochs: store }), "bench");
  const probe = new ToolProbe();
  const agent = createBenchAgent(probe);
  const workspaceRoot = mkdtempSync(join(tmpdir(), "parley-bench-ws-"));
  const workspaces = createWorkspaceCatalog({ session_root: workspaceRoot, named: new Map() });
  const composed = composeRuntime({ adapters: { store, bus, leases }, agent, workspaces });
  const { runtime } = composed;
  // One admin, one token, in memory: this stack measures the runtime and transport, not auth.
  const auth = new InMemoryAuthStore();
  const token = await auth.issueToken(
    (await auth.createUser({ name: "bench-admin", role: "admin" })).user_id,
  );
  const server = await startBenchApiServer({
    runtime,
    adapters: { store, bus, auth },
    workspaces,
    port: options.port,
  });
  const clients: ParleyClient[] = [];
  return {
    server,
    probe,
    client: () => {
      const client = createParleyClient({ url: server.url, token });
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
      await composed.close();
      rmSync(workspaceRoot, { recursive: true, force: true });
    },
  };
}
