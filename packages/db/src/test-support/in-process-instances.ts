import { type AgentDefinition, type ComposedRuntime, composeRuntime } from "@parley/session-core";
import { createDatabase, type ParleyDatabase } from "../create-database.js";

/** One API instance's adapters and runtime, composed in this process. */
export interface InProcessInstance {
  database: ParleyDatabase;
  composed: ComposedRuntime;
}

/**
 * Instances on one database, each with its own pool, LISTEN connection and lease connection (as
 * several API processes have them), started as the API starts them (liveness pass included). The
 * first one migrates. `close` stops them all (runtimes first, then their connections).
 */
export async function startInProcessInstances(
  url: string,
  names: readonly string[],
  runtime: { agent: AgentDefinition; park_grace_ms?: number | undefined },
): Promise<{ instances: InProcessInstance[]; close(): Promise<void> }> {
  const instances: InProcessInstance[] = [];
  const close = async () => {
    for (const { composed } of instances) await composed.close();
    for (const { database } of instances) await database.close();
  };
  try {
    for (const [index, name] of names.entries()) {
      const database = await createDatabase({ url, holder_id: `test:${name}`, migrate: index === 0 });
      const composed = composeRuntime({
        adapters: database,
        agent: runtime.agent,
        ...(runtime.park_grace_ms === undefined ? {} : { park_grace_ms: runtime.park_grace_ms }),
      });
      instances.push({ database, composed });
      await composed.start();
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { instances, close };
}
