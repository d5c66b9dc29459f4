#!/usr/bin/env node
// `npm run bench [-- suite…]`: runs bench/main.ts from the workspace sources (tsx, `source`
// condition), so the bench needs no build. `npm run bench -- load` runs the load test instead;
// `npm run bench -- load buses` runs it on each bus (NOTIFY, NATS) with 1 and 2 instances.
// Sizes: BENCH_SCALE=small|full (default full), single sizes with BENCH_<NAME> (bench/lib/scale.ts).
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const buses = args[0] === "load" && args[1] === "buses";
const entry = buses
  ? join(root, "bench/load-buses.ts")
  : args[0] === "load"
    ? join(root, "bench/load.ts")
    : join(root, "bench/main.ts");
const rest = buses ? args.slice(2) : args[0] === "load" ? args.slice(1) : args;
const result = spawnSync(
  process.execPath,
  [
    "--expose-gc",
    "--import",
    "tsx",
    "--conditions=parley-source",
    ...(process.env.BENCH_NODE_OPTIONS?.split(" ").filter(Boolean) ?? []),
    entry,
    ...rest,
  ],
  { cwd: root, stdio: "inherit", env: process.env },
);
process.exit(result.status ?? 1);
