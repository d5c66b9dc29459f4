#!/usr/bin/env node
// Runs the Prisma CLI (from packages/db, where prisma.config.ts lives) fully offline: no telemetry
// checkpoint (it waits for a network timeout), and a placeholder DATABASE_URL for commands that need
// none (`generate` reads `env("DATABASE_URL")` from the schema but never connects).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve("prisma/package.json")), "build/index.js");
const env = {
  ...process.env,
  CHECKPOINT_DISABLE: "1",
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  DATABASE_URL: process.env.DATABASE_URL || "postgresql://unused@127.0.0.1:1/unused",
};
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], {
  cwd: path.resolve(import.meta.dirname, ".."),
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
