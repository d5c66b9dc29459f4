// Ports for servers this process starts (embedded Postgres, NATS, API processes in tests): asked of the kernel, not guessed.
import net from "node:net";

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error("Could not determine a free port");
  return port;
}

/**
 * `count` distinct ports free right now. The listeners are all open at once before any closes, so
 * the kernel cannot hand the same port out twice (a process restarted on one of them, as the fault
 * tests do, comes back where its clients reconnect).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.unref();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("Could not determine a free port");
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
