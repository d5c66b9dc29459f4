import { defineConfig, devices } from "@playwright/test";
import { WEB_PORT } from "./e2e/support/ports";

/**
 * Browser tests against the real stack: a fresh Postgres database, the built API (`apps/api/dist`)
 * with the demo model, and the built web app (`next start`), all started by the global setup.
 * Run after `npm run build`.
 */
export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "./test-results",
  globalSetup: "./e2e/support/global-setup.ts",
  // One worker: the tests share one API and one of them restarts it; the machine has 2 cores.
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  retries: 0,
  reporter: process.env.CI ? "list" : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${WEB_PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "chromium", use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 860 } } },
  ],
});
