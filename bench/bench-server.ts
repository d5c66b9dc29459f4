import { startParleyStack } from "./lib/parley-stack.js";

/**
 * A Parley API process serving the bench agent, for the load test: prints one JSON line
 * `{ url, token, database_url }` on stdout once listening, and stops (dropping its database) on
 * SIGTERM. Usage: `node --import tsx --conditions=parley-source bench/bench-server.ts <serverUrl> <port>
 * [databaseUrl]`: with a database URL (or `BENCH_SHARED_DATABASE_URL`) it serves that (migrated)
 * database and leaves it in place, so that several instances share one, as behind a load balancer.
 * `BENCH_BUS` sets its `PARLEY_BUS`. With `BENCH_PROBE_EVENTS=1` it also prints a line
 * `{ resumed: key, at }` each time the bench tool continues after its approval (`at`: wall-clock ms,
 * `performance.timeOrigin + performance.now()`, comparable across the processes of one machine).
 */
async function main(): Promise<void> {
  const [serverUrl, port, databaseArg] = process.argv.slice(2);
  if (!serverUrl || !port)
    throw new Error("usage: bench-server.ts <postgres server url> <port> [database url]");
  const databaseUrl = databaseArg ?? process.env.BENCH_SHARED_DATABASE_URL;
  const shared = databaseUrl
    ? { name: new URL(databaseUrl).pathname.slice(1), url: databaseUrl, drop: async () => undefined }
    : undefined;
  const stack = await startParleyStack({
    serverUrl,
    port: Number(port),
    bus_url: process.env.BENCH_BUS || undefined,
    ...(shared ? { scratch: shared } : {}),
  });
  if (process.env.BENCH_PROBE_EVENTS === "1") {
    const markResumed = stack.probe.markResumed.bind(stack.probe);
    stack.probe.markResumed = (key) => {
      const at = performance.timeOrigin + performance.now();
      process.stdout.write(`${JSON.stringify({ resumed: key, at })}\n`);
      markResumed(key);
    };
  }
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
