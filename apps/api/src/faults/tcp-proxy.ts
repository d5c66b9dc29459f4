import net from "node:net";

/**
 * A loopback TCP proxy in front of the API, so that a test can cut a client's connections for real
 * (both sockets destroyed, as a network failure would) and refuse reconnects for a while.
 */
export interface TcpProxy {
  readonly url: string;
  /** Destroys every open connection; while `refusing`, new ones are closed at once. */
  cut(options: { refusing: boolean }): void;
  /** Accepts connections again. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(options: { port: number; targetPort: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((incoming) => {
    if (refusing) {
      incoming.destroy();
      return;
    }
    const outgoing = net.connect({ host: "127.0.0.1", port: options.targetPort });
    for (const socket of [incoming, outgoing]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {
        incoming.destroy();
        outgoing.destroy();
      });
    }
    incoming.pipe(outgoing);
    outgoing.pipe(incoming);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${options.port}`,
    cut(cutOptions) {
      refusing = cutOptions.refusing;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
