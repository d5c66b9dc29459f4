#!/usr/bin/env node
// Runs the embedded PostgreSQL for `npm start` in its own process group, so that a terminal's Ctrl-C
// reaches only scripts/start.mjs, which stops the API and the web app first and this host last.
// Prints `{"url": …}` as one line on stdout once the database is ready; stops on SIGTERM/SIGINT.
import { join } from "node:path";
import { resolveDatabaseUrl } from "@parley/db";

const root = new URL("..", import.meta.url).pathname;
const database = await resolveDatabaseUrl({ data_root: join(root, ".parley") });
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
