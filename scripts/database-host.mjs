#!/usr/bin/env node
// Runs the embedded PostgreSQL for `npm start` in its own process group, so that a terminal's Ctrl-C
// reaches only scripts/start.mjs, which stops the API and the web app first and this host last.
// Prints `{"url": …}` as one line on stdout once the database is ready (the URL of the app's own
// non-superuser role); stops on SIGTERM/SIGINT. A failure is one line on stderr, exit code 1.
import { join } from "node:path";
import { resolveDatabaseUrl } from "@parley/db";

const root = new URL("..", import.meta.url).pathname;
let database;
try {
  database = await resolveDatabaseUrl({ data_root: join(root, ".parley") });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(
    message.split("\n").find((line) => line.trim() !== "") ?? "Embedded PostgreSQL failed to start",
  );
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ url: database.url })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await database.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
