import net from "node:net";

/**
 * `count` distinct ports free right now. The listeners are all open at once before any closes, so
 * the kernel cannot hand the same port out twice; the fault tests bind them again moments later
 * (and an API restarted by a test comes back on the same one, where its clients reconnect).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("a listener without a port");
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
