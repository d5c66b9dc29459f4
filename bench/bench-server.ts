import { startParleyStack } from "./lib/parley-stack.js";

/**
 * A Parley API process serving the bench agent, for the load test: prints one JSON line
 * `{ url, token, database_url }` on stdout once listening, and stops (dropping its database) on
 * SIGTERM. Usage: `node --import tsx --conditions=parley-source bench/bench-server.ts <serverUrl> <port>`.
 * `BENCH_BUS` sets its `PARLEY_BUS`; `BENCH_SHARED_DATABASE_URL` makes it a further instance on the
 * (migrated) database of a first one, which it then neither creates nor drops.
 */
async function main(): Promise<void> {
  const [serverUrl, port] = process.argv.slice(2);
  if (!serverUrl || !port) throw new Error("usage: bench-server.ts <postgres server url> <port>");
  const shared = process.env.BENCH_SHARED_DATABASE_URL;
  const stack = await startParleyStack({
    serverUrl,
    port: Number(port),
    bus_url: process.env.BENCH_BUS || undefined,
    ...(shared ? { scratch: { name: "shared", url: shared, drop: async () => undefined } } : {}),
  });
  process.stdout.write(
    `${JSON.stringify({ url: stack.server.url, token: stack.adminToken, database_url: stack.scratch.url })}\n`,
  );
  process.once("SIGTERM", () => {
    stack.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
