import WebSocket from "ws";

/** A tRPC frame the server sent (`id` null for connection-level errors). */
export interface RawFrame {
  id: number | string | null;
  result?: { type: string; data?: unknown };
  error?: { message: string; data?: { parley_code?: string | null } };
}

/**
 * One WebSocket to `/trpc` spoken at the wire level, as a hostile or simple client would: it
 * sends the token as `connectionParams`, then raw JSON-RPC messages, and records every frame and
 * the close. Waits are on events, never on time.
 */
export class RawWebSocket {
  readonly frames: RawFrame[] = [];
  /** Resolves with the close code and reason once the socket closed (either side). */
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #socket: WebSocket;
  readonly #waiters = new Set<() => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((resolve) => {
      socket.once("close", (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.#wake();
      });
    });
    socket.on("message", (data) => {
      const text = data.toString();
      if (text === "PING" || text === "PONG") return;
      this.frames.push(JSON.parse(text) as RawFrame);
      this.#wake();
    });
  }

  /** Opens the socket and sends `{ token }` as its connection params. */
  static async open(api_url: string, token: string | null): Promise<RawWebSocket> {
    const socket = new WebSocket(`${api_url.replace(/^http/, "ws")}/trpc?connectionParams=1`);
    const raw = new RawWebSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    socket.send(JSON.stringify({ method: "connectionParams", data: token === null ? {} : { token } }));
    return raw;
  }

  get isOpen(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  send(message: unknown): void {
    this.#socket.send(JSON.stringify(message));
  }

  /** Sends a query or mutation and resolves with the frame that answers it. */
  async call(id: number, method: "query" | "mutation", path: string, input?: unknown): Promise<RawFrame> {
    this.send({ id, method, params: { path, input } });
    return this.waitForFrame((frame) => frame.id === id);
  }

  /** Starts a subscription and resolves with its first answer (`started`, or an error). */
  async subscribe(id: number, path: string, input: unknown): Promise<RawFrame> {
    this.send({ id, method: "subscription", params: { path, input } });
    return this.waitForFrame(
      (frame) => frame.id === id && (frame.error !== undefined || frame.result?.type === "started"),
    );
  }

  /** The first recorded frame (past or future) that matches; fails if the socket closes first. */
  async waitForFrame(matches: (frame: RawFrame) => boolean, timeoutMs = 30_000): Promise<RawFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(matches);
      if (found !== undefined) return found;
      if (this.#socket.readyState === WebSocket.CLOSED)
        throw new Error("socket closed before the frame came");
      if (Date.now() > deadline) throw new Error(`no matching frame within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
        this.#waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.#socket.close();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

/** Waits for `promise`, failing after `timeoutMs` with `what` (a generous bound, never asserted on). */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
