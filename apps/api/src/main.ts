import { BusUnreachableError } from "@parley/db";
import { composeApi } from "./compose.js";
import { limitsFromEnv, memberQuotasFromEnv, parseEnv, runtimeSettingsFromEnv } from "./env.js";
import { createLogger } from "./logger.js";
import { startMetricsServer } from "./metrics/metrics-http.js";
import { openApiAdapters } from "./open-adapters.js";
import { startApiServer } from "./server.js";
import { describeStartupFailure } from "./startup-failure.js";

/**
 * `npm run start:api`: parse the environment, build the adapters, compose, serve. On SIGINT/SIGTERM
 * it stops accepting, closes sockets, drains, releases leases and closes the database, in that order.
 */
async function main(): Promise<void> {
  const env = parseEnv(process.env);
  const logger = createLogger(env.LOG_LEVEL);
  const adapters = await openApiAdapters(env, logger);
  const api = await composeApi({
    adapters,
    logger,
    member_quotas: memberQuotasFromEnv(env),
    ...runtimeSettingsFromEnv(env),
  });
  const server = await startApiServer({
    services: api.services,
    port: env.PORT,
    host: env.HOST,
    checkHealth: () => api.checkHealth(),
    metrics: api.metrics,
    metrics_token: env.PARLEY_METRICS_TOKEN,
    limits: limitsFromEnv(env),
  }).catch(async (error: unknown) => {
    // Not listening (port taken): release the leases and stop an embedded database before leaving.
    await api.close().catch(() => undefined);
    throw error;
  });

  const metricsServer =
    env.PARLEY_METRICS_PORT === undefined
      ? null
      : await startMetricsServer({
          metrics: api.metrics,
          port: env.PARLEY_METRICS_PORT,
          host: env.PARLEY_METRICS_HOST,
          logger,
        }).catch(async (error: unknown) => {
          await server.close();
          await api.close().catch(() => undefined);
          throw error;
        });
  if (metricsServer === null && env.PARLEY_METRICS_TOKEN === undefined) {
    logger.info("/metrics is off: set PARLEY_METRICS_TOKEN or PARLEY_METRICS_PORT to serve it");
  }

  let shuttingDown = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, "shutting down");
    try {
      await server.close();
      await metricsServer?.close();
      await api.close();
      logger.info("shutdown complete");
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.once("SIGINT", (signal) => void shutdown(signal));
  process.once("SIGTERM", (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  // An unreachable bus or a taken port is the operator's to fix: one line saying which, not a stack trace.
  const port = Number(process.env.PORT ?? 4000);
  console.error(
    error instanceof BusUnreachableError
      ? error.message
      : `parley: ${describeStartupFailure(error, { host: process.env.HOST ?? "127.0.0.1", port })}`,
  );
  process.exit(1);
});
