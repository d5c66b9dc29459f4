import { PostgresMemberUsage, PostgresSessionListStates } from "@parley/db";
import { type ComposeRuntimeOptions, composeRuntime } from "@parley/session-core";
import type { Logger } from "pino";
import { DEFAULT_MEMBER_QUOTAS, type MemberQuotaLimits, MemberQuotas } from "./limits/member-quotas.js";
import type { ApiMetrics } from "./metrics/api-metrics.js";
import type { ApiAdapters } from "./open-adapters.js";
import { type ApiServices, composeApiServices } from "./services.js";

export interface ComposedApi {
  services: ApiServices;
  /** For `startApiServer({ metrics })`: `GET /metrics`. */
  metrics: ApiMetrics;
  checkHealth(): Promise<boolean>;
  /** Stops recovery, releases every lease (`runtime.shutdown()`), closes the adapters (the database). */
  close(): Promise<void>;
}

/**
 * The server's wiring of built adapters: the runtime (`composeRuntime`, recovered at startup and
 * then periodically), the metrics that read the database, and the services every procedure gets.
 * It owns `adapters` from here on: it closes them when it fails and in `close()`.
 */
export async function composeApi(
  options: {
    adapters: ApiAdapters;
    logger: Logger;
    member_quotas?: MemberQuotaLimits;
    /**
     * The liveness pass's interval (`PARLEY_RECOVER_INTERVAL_MS`): required, because a server
     * without its recovery loop would neither take over dead holders' Turns nor drive queued
     * commands whose notice was lost.
     */
    recover_interval_ms: number;
  } & Pick<ComposeRuntimeOptions, "park_waiting_turns" | "park_grace_ms" | "stream_checkpoint_ms">,
): Promise<ComposedApi> {
  const { adapters, logger } = options;
  const { database, agent, models, workspaces, metrics } = adapters;
  metrics.readStatsFrom(database.stats);
  metrics.countLiveNotCarriedWith(() => database.bus.liveMutationsNotCarried);
  // The bus-lag gauge, fed by one listener of this process until the bus reports it itself.
  const stopLagProbe = database.bus.subscribe({
    onSessionEvent: (event) => metrics.recordBusLag((Date.now() - event.mutation.created_at) / 1000),
  });
  const composed = composeRuntime({
    adapters: database,
    agent,
    workspaces,
    logger: logger.child({ component: "runtime" }),
    park_waiting_turns: options.park_waiting_turns,
    park_grace_ms: options.park_grace_ms,
    stream_checkpoint_ms: options.stream_checkpoint_ms,
    recover_interval_ms: options.recover_interval_ms,
  });
  try {
    await composed.start();
  } catch (error) {
    stopLagProbe();
    await composed.close().catch(() => undefined);
    await adapters.close();
    throw error;
  }

  const services = composeApiServices({
    runtime: composed.runtime,
    adapters: database,
    agent,
    workspaces,
    models,
    logger,
    session_states: new PostgresSessionListStates(database.pool),
    quotas: new MemberQuotas(
      new PostgresMemberUsage(database.pool),
      options.member_quotas ?? DEFAULT_MEMBER_QUOTAS,
      workspaces,
    ),
  });
  return {
    services,
    metrics,
    checkHealth: () => database.ping(),
    async close() {
      stopLagProbe();
      await composed.close();
      await adapters.close();
    },
  };
}
