/** One HTTP request of the batch link. */
export interface HttpExchange {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** The answer to an `HttpExchange`: its status and its body parsed as JSON (a body that is not JSON rejects). */
export interface HttpReply {
  status: number;
  body: unknown;
}

/** Sends one request; rejects on a network failure or a body that is not JSON. */
export interface HttpTransport {
  send(exchange: HttpExchange): Promise<HttpReply>;
  /** Closes the idle connections (the client is closing). */
  close(): void;
}

/** `fetch`: browsers, and any runtime that is not Node. */
export const fetchTransport: HttpTransport = {
  async send({ url, method, headers, body }) {
    const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: await response.json() };
  },
  close() {},
};

type NodeHttp = typeof import("node:http");

/**
 * How long a kept-alive connection may sit idle before this client closes it: less than the 5 s
 * after which a Node server (Parley's API included, `keepAliveTimeout`'s default) closes it. A
 * request written to a connection the server is closing at that moment fails with ECONNRESET
 * ("socket hang up"), as a CI run saw after a test had been idle for 5 s. A request that takes
 * longer than this is not affected: only idle connections are closed.
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * Node's own `http`/`https` with keep-alive agents. Measured in one process on loopback, a small
 * POST costs about 90 µs of CPU this way against 370 µs through Node's `fetch` (undici builds a
 * Fetch `Request`, a `ReadableStream` body and an `AbortSignal` per call), and answers in about a
 * quarter of the time; a Node service answering Interactions pays that on every call.
 */
function nodeTransport(http: NodeHttp, https: NodeHttp, idle_connection_ms: number): HttpTransport {
  // An agent's `timeout` closes its free sockets once idle that long.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, timeout: idle_connection_ms }),
    "https:": new https.Agent({ keepAlive: true, timeout: idle_connection_ms }),
  };
  return {
    send({ url, method, headers, body }) {
      const target = new URL(url);
      const [client, agent] =
        target.protocol === "https:" ? [https, agents["https:"]] : [http, agents["http:"]];
      return new Promise<HttpReply>((resolve, reject) => {
        const request = client.request(
          target,
          {
            method,
            agent,
            headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("error", reject);
            response.on("end", () => {
              try {
                resolve({
                  status: response.statusCode ?? 0,
                  body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
                });
              } catch (error) {
                reject(error);
              }
            });
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    },
    // Only the idle connections: a request still in flight when the client closes gets its answer.
    close() {
      for (const agent of Object.values(agents)) {
        for (const sockets of Object.values(agent.freeSockets))
          for (const socket of sockets ?? []) socket.destroy();
      }
    },
  };
}

function isNode(): boolean {
  const candidate = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof candidate?.versions?.node === "string" && !("window" in globalThis);
}

/**
 * The transport for this runtime: Node's `http` on Node, `fetch` elsewhere. The Node modules are
 * loaded with a dynamic import that bundlers leave alone, so browser bundles never pull them in.
 */
export async function loadHttpTransport(
  options: { idle_connection_ms?: number } = {},
): Promise<HttpTransport> {
  if (!isNode()) return fetchTransport;
  const [http, https] = (await Promise.all(
    ["node:http", "node:https"].map((name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name)),
  )) as [NodeHttp, NodeHttp];
  return nodeTransport(http, https, options.idle_connection_ms ?? IDLE_CONNECTION_MS);
}

/** `loadHttpTransport()`'s transport, loaded on the first request (a client is created synchronously). */
export function lazyHttpTransport(): HttpTransport {
  let loading: Promise<HttpTransport> | null = null;
  return {
    async send(exchange) {
      loading ??= loadHttpTransport();
      return (await loading).send(exchange);
    },
    close() {
      void loading?.then((transport) => transport.close()).catch(() => undefined);
    },
  };
}
