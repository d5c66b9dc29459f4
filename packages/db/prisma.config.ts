// Prisma CLI configuration for Parley (lives in packages/db so that `npm run … -w @parley/db` finds
// it; the schema and migrations stay at the repository root under prisma/). `engine: "js"` makes the
// CLI use the bundled Wasm schema engine through a driver adapter, so every command works offline
// (Prisma 6.19.3; src/migrations/prisma-cli-adapter.ts says which adapter bugs it works around).
import path from "node:path";
import { defineConfig } from "prisma/config";
import { createPrismaCliAdapter } from "./src/migrations/prisma-cli-adapter.js";

const repositoryRoot = path.resolve(import.meta.dirname, "../..");

export default defineConfig({
  schema: path.join(repositoryRoot, "prisma/schema.prisma"),
  migrations: { path: path.join(repositoryRoot, "prisma/migrations") },
  experimental: { adapter: true },
  engine: "js",
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL must be set for Prisma CLI commands that touch a database");
    return createPrismaCliAdapter(url);
  },
});
