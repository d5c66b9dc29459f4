// Builds the publishable package: one ESM bundle and one self-contained declaration file.
// `@parley/session-core/wire` (private, unpublished) is bundled into both; the real dependencies
// (@trpc/*, zod, ws) stay imports.
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const external = ["@trpc/client", "@trpc/server", "zod", "ws"];

await rm("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/index.ts"],
  outfile: "dist/index.js",
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  conditions: ["parley-source"],
  external,
  sourcemap: true,
  logLevel: "warning",
});
execFileSync(
  process.execPath,
  ["../../node_modules/rollup/dist/bin/rollup", "-c", "rollup.dts.config.mjs", "--silent"],
  {
    stdio: "inherit",
  },
);
