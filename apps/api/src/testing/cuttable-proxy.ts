import net from "node:net";

export interface CuttableProxy {
  url: string;
  /** Connections accepted so far (a reconnect shows up as a new one). */
  connectionCount(): number;
  /** Destroys every open connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the API that a test can cut, as a network failure would: both sides see
 * the socket die without a WebSocket close handshake.
 */
export async function startCuttableProxy(target_url: string): Promise<CuttableProxy> {
  const target = new URL(target_url);
  const open = new Set<net.Socket>();
  let refusing = false;
  let accepted = 0;

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    accepted += 1;
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;

  return {
    url: `http://127.0.0.1:${address.port}`,
    connectionCount: () => accepted,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    async close() {
      refusing = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
