import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { Logger } from "pino";
import { readBearerToken } from "../auth/bearer-token.js";
import { listenOn } from "../listen.js";
import type { ApiMetrics } from "./api-metrics.js";

/**
 * Who may read `/metrics` (DESIGN §10.8): on the API listener only a caller with the bearer
 * `PARLEY_METRICS_TOKEN`; on the metrics listener (`PARLEY_METRICS_PORT`, loopback by default)
 * whoever reaches that port. Never an anonymous caller of the API port.
 */
export type MetricsAccess = { kind: "token"; token: string } | { kind: "listener" };

/** Compares digests, so the time taken says nothing about how much of the token matched. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Answers one `GET /metrics`: 401 without the token the access asks for, else the exposition. */
export async function serveMetrics(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: { metrics: ApiMetrics; access: MetricsAccess; logger: Logger },
): Promise<void> {
  if (options.access.kind === "token") {
    const given = readBearerToken({ authorization: request.headers.authorization, connectionParams: null });
    if (given === null || !sameToken(given, options.access.token)) {
      response
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="metrics"' })
        .end("metrics need the bearer PARLEY_METRICS_TOKEN\n");
      return;
    }
  }
  try {
    const body = await options.metrics.render();
    response.writeHead(200, { "content-type": options.metrics.contentType }).end(body);
  } catch (error) {
    options.logger.error({ err: error }, "collecting metrics failed");
    response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
  }
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `/metrics` on its own listener (`PARLEY_METRICS_PORT` on `PARLEY_METRICS_HOST`); nothing else there. */
export async function startMetricsServer(options: {
  metrics: ApiMetrics;
  port: number;
  host: string;
  logger: Logger;
}): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/metrics" && request.method === "GET") {
      void serveMetrics(request, response, { ...options, access: { kind: "listener" } });
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  const { url } = await listenOn(server, options.port, options.host);
  options.logger.info({ url }, "metrics listening");
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
