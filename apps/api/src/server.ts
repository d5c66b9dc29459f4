import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { WebSocketServer } from "ws";
import { readBearerToken } from "./auth/bearer-token.js";
import { isInternalError } from "./errors.js";
import { openApiJson } from "./openapi/openapi-json.js";
import { appRouter } from "./router.js";
import type { ApiServices } from "./services.js";
import type { ApiContext } from "./trpc.js";

/** DESIGN.md §9: a request body over 1 MiB is `invalid_input`. */
export const MAX_BODY_BYTES = 1024 * 1024;

const TRPC_PATH = "/trpc";

/** Browsers send bearer tokens, never cookies, so any origin may call (credentials stay off). */
const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, trpc-accept, x-trpc-source, last-event-id",
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
}

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

  const createContext = async (input: {
    req: http.IncomingMessage;
    info: { connectionParams: Record<string, string | undefined> | null };
  }): Promise<ApiContext> => {
    const token = readBearerToken({
      authorization: input.req.headers.authorization,
      connectionParams: input.info.connectionParams,
    });
    const user = token === null ? null : await services.auth.authenticate(token);
    return { services, user };
  };

  const onError = ({ error, path }: { error: TRPCError; path: string | undefined }) => {
    if (isInternalError(error)) logger.error({ err: error.cause ?? error, path }, "procedure failed");
  };

  const trpcHandler = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PATH}/`,
    maxBodySize: MAX_BODY_BYTES,
    createContext,
    onError,
  });

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
      const healthy = closing === null && (await options.checkHealth().catch(() => false));
      response
        .writeHead(healthy ? 200 : 503, { "content-type": "application/json" })
        .end(JSON.stringify({ ok: healthy }));
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
  const wsHandler = applyWSSHandler({
    wss,
    router: appRouter,
    createContext,
    onError,
    keepAlive: { enabled: true, pingMs: 15_000, pongWaitMs: 5_000 },
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const displayHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${displayHost}:${address.port}`;
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
      logger.info({ url }, "API stopped accepting and drained");
    })();
    return closing;
  };

  return { url, port: address.port, close };
}
