import type http from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on `host:port` (0 picks a free port); resolves with the URL and port it got, rejects on EADDRINUSE. */
export async function listenOn(
  server: http.Server,
  port: number,
  host: string,
): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const displayHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${displayHost}:${address.port}`, port: address.port };
}
