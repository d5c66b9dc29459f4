import { randomUUID } from "node:crypto";
import http from "node:http";
import type { Socket } from "node:net";
import type { AuthenticatedToken } from "@parley/session-core";
import { ParleyError } from "@parley/session-core";
import type { TRPCError } from "@trpc/server";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { type WebSocket, WebSocketServer } from "ws";
import { ApiAccess } from "./auth/api-access.js";
import { readBearerToken } from "./auth/bearer-token.js";
import type { OpenConnection } from "./auth/open-connections.js";
import { isInternalError, toTRPCError } from "./errors.js";
import { type ApiLimits, DEFAULT_API_LIMITS } from "./limits/api-limits.js";
import { listenOn } from "./listen.js";
import type { ApiMetrics } from "./metrics/api-metrics.js";
import { serveMetrics } from "./metrics/metrics-http.js";
import { openApiJson } from "./openapi/openapi-json.js";
import { appRouter } from "./router.js";
import type { ApiServices } from "./services.js";
import type { ApiContext } from "./trpc.js";
import { createTrpcNodeHandler } from "./trpc-node-handler.js";

/** A request body over 1 MiB is `invalid_input` (docs/behaviour.md#limits). */
export const MAX_BODY_BYTES = 1024 * 1024;

const TRPC_PATH = "/trpc";

/** Browsers send bearer tokens, never cookies, so any origin may call (credentials stay off). */
const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers":
    "authorization, content-type, trpc-accept, x-trpc-source, last-event-id, x-request-id",
  "access-control-max-age": "600",
};

export interface StartApiServerOptions {
  services: ApiServices;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** `GET /healthz` answers 200 only while this resolves true (database reachable, migrations applied). */
  checkHealth: () => Promise<boolean>;
  /** How long `close()` waits for in-flight HTTP requests before cutting them. Default 5 s. */
  drainTimeoutMs?: number;
  /**
   * Served at `GET /metrics` (Prometheus text format) to a caller with the bearer `metrics_token`;
   * without a token `/metrics` is not served on this listener (see `startMetricsServer`).
   */
  metrics?: ApiMetrics;
  metrics_token?: string | undefined;
  /** Resource limits (`env.ts` reads them from `PARLEY_*`); unset ones take their defaults. */
  limits?: Partial<ApiLimits>;
}

/** The WebSocket close code for a connection whose token was revoked or expired. */
export const TOKEN_ENDED_CLOSE_CODE = 4401;

export interface ApiServer {
  url: string;
  port: number;
  /**
   * Stops accepting, closes WebSockets and SSE streams (clients resume elsewhere with
   * `lastEventId`), drains in-flight requests. Does not touch the runtime or the database: the
   * composition root closes those afterwards.
   */
  close(): Promise<void>;
}

/** A caller-supplied `x-request-id` (trimmed, at most 128 characters), else a new UUID. */
function requestIdOf(request: http.IncomingMessage): string {
  const header = request.headers["x-request-id"];
  const given = (Array.isArray(header) ? header[0] : header)?.trim();
  return given && given.length <= 128 ? given : randomUUID();
}

function pathOf(request: http.IncomingMessage): string {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * One Node HTTP server: tRPC at `/trpc` over HTTP (batching, SSE subscriptions) and over WebSocket
 * on the same port, `GET /healthz`, CORS. Used by `main.ts` and by tests.
 */
export async function startApiServer(options: StartApiServerOptions): Promise<ApiServer> {
  const { services } = options;
  const logger = services.logger;

  const access = new ApiAccess({
    auth: services.auth,
    limits: { ...DEFAULT_API_LIMITS, ...options.limits },
    logger,
  });

  const authenticate = (token: string | null): Promise<AuthenticatedToken | null> =>
    token === null ? Promise.resolve(null) : access.authenticator.authenticate(token);

  const contextFor = (
    request: http.IncomingMessage,
    identity: AuthenticatedToken | null,
    connection: ApiContext["connection"],
  ): ApiContext => ({
    services,
    request_id: requestIdOf(request),
    user: identity?.user ?? null,
    token_hash: identity?.token_hash ?? null,
    connection,
    access,
  });

  const openConnection = (connection: OpenConnection): (() => void) => {
    try {
      return access.connections.open(connection);
    } catch (error) {
      throw toTRPCError(error);
    }
  };

  /** HTTP: one context per request; an SSE subscription counts as one of the user's connections. */
  const createHttpContext = async (input: {
    req: http.IncomingMessage;
    res: http.ServerResponse;
    info: { connectionParams: Record<string, string | undefined> | null; calls: unknown[]; type: string };
  }): Promise<ApiContext> => {
    const max = access.limits.batch_size;
    if (input.info.calls.length > max) {
      // Thrown as the mapped TRPCError: an error out of createContext otherwise travels as a 500.
      throw toTRPCError(new ParleyError("invalid_input", `A batch may hold at most ${max} calls`));
    }
    const identity = await authenticate(
      readBearerToken({
        authorization: input.req.headers.authorization,
        connectionParams: input.info.connectionParams,
      }),
    );
    if (identity !== null && input.info.type === "subscription") {
      const release = openConnection({
        user_id: identity.user.user_id,
        token_hash: identity.token_hash,
        expires_at: identity.expires_at,
        close: () => input.res.destroy(),
      });
      input.res.once("close", release);
    }
    return contextFor(input.req, identity, null);
  };

  /** WebSocket: one context per connection, counted against the user's connections. */
  const createWsContext = async (input: {
    req: http.IncomingMessage;
    res: WebSocket;
    info: { connectionParams: Record<string, string | undefined> | null };
  }): Promise<ApiContext> => {
    const identity = await authenticate(
      readBearerToken({
        authorization: input.req.headers.authorization,
        connectionParams: input.info.connectionParams,
      }),
    );
    if (identity !== null) {
      const socket = input.res;
      const release = openConnection({
        user_id: identity.user.user_id,
        token_hash: identity.token_hash,
        expires_at: identity.expires_at,
        close: (reason) => socket.close(TOKEN_ENDED_CLOSE_CODE, reason),
      });
      socket.once("close", release);
      if (socket.readyState >= socket.CLOSING) release();
    }
    return contextFor(input.req, identity, { subscriptions: 0 });
  };

  const onError = ({
    error,
    path,
    ctx,
  }: {
    error: TRPCError;
    path: string | undefined;
    ctx?: ApiContext;
  }) => {
    if (isInternalError(error)) {
      logger.error({ err: error.cause ?? error, path, request_id: ctx?.request_id }, "procedure failed");
    }
  };

  const trpcHandler = createTrpcNodeHandler({
    router: appRouter,
    basePath: `${TRPC_PATH}/`,
    maxBodySize: MAX_BODY_BYTES,
    createContext: createHttpContext,
    onError,
  });

  /**
   * `/healthz` answers share one database ping per half second: a flood of health checks costs
   * the (auth) pool at most two queries a second.
   */
  let lastHealth: { at: number; result: Promise<boolean> } | null = null;
  const checkHealthShared = (): Promise<boolean> => {
    const now = Date.now();
    if (lastHealth === null || now - lastHealth.at >= 500) {
      lastHealth = { at: now, result: options.checkHealth().catch(() => false) };
    }
    return lastHealth.result;
  };

  /** Open SSE responses: cut at shutdown so their clients resume elsewhere (they never end by themselves). */
  const streams = new Set<http.ServerResponse>();
  let closing: Promise<void> | null = null;

  const server = http.createServer(async (request, response) => {
    for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
    const path = pathOf(request);
    if (request.method === "OPTIONS") {
      response.writeHead(204).end();
      return;
    }
    if (path === "/healthz" && request.method === "GET") {
      const healthy = closing === null && (await checkHealthShared());
      response
        .writeHead(healthy ? 200 : 503, { "content-type": "application/json" })
        .end(JSON.stringify({ ok: healthy }));
      return;
    }
    if (path === "/metrics" && request.method === "GET" && options.metrics && options.metrics_token) {
      const access = { kind: "token", token: options.metrics_token } as const;
      await serveMetrics(request, response, { metrics: options.metrics, access, logger });
      return;
    }
    if (path === "/openapi.json" && request.method === "GET") {
      response.writeHead(200, { "content-type": "application/json" }).end(openApiJson());
      return;
    }
    if (path === TRPC_PATH || path.startsWith(`${TRPC_PATH}/`)) {
      if ((request.headers.accept ?? "").includes("text/event-stream")) streams.add(response);
      response.on("close", () => streams.delete(response));
      trpcHandler(request, response);
      return;
    }
    response
      .writeHead(404, { "content-type": "application/json" })
      .end(JSON.stringify({ error: "Not found" }));
  });

  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const wss = new WebSocketServer({ server, maxPayload: MAX_BODY_BYTES });
  options.metrics?.countWebSocketClientsWith(() => wss.clients.size);
  // It re-emits the HTTP server's errors (EADDRINUSE at listen), which the listen below reports.
  wss.on("error", () => undefined);
  const wsHandler = applyWSSHandler({
    wss,
    router: appRouter,
    createContext: createWsContext,
    onError,
    keepAlive: { enabled: true, pingMs: 15_000, pongWaitMs: 5_000 },
  });

  const { url, port } = await listenOn(server, options.port, options.host);
  logger.info({ url }, "API listening");

  const close = (): Promise<void> => {
    closing ??= (async () => {
      const drainTimeoutMs = options.drainTimeoutMs ?? 5_000;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      wsHandler.broadcastReconnectNotification();
      for (const client of wss.clients) client.close(1012, "server shutting down");
      wss.close();
      for (const stream of streams) stream.destroy();
      server.closeIdleConnections();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, drainTimeoutMs);
      deadline.unref();
      await stopped;
      clearTimeout(deadline);
      access.close();
      logger.info({ url }, "API stopped accepting and drained");
    })();
    return closing;
  };

  return { url, port, close };
}
