/**
 * The env var through which the test global setup hands the admin URL of the test server to test
 * workers and to any child process they spawn (env is inherited; vitest's `inject` is not).
 */
export const TEST_ADMIN_URL_ENV = "PARLEY_TEST_ADMIN_DATABASE_URL";

declare module "vitest" {
  export interface ProvidedContext {
    parleyTestAdminDatabaseUrl: string;
  }
}

/** Env first (works in workers and child processes), then vitest's `inject`, then `DATABASE_URL`. */
export async function resolveTestAdminUrl(): Promise<string> {
  const fromEnv = process.env[TEST_ADMIN_URL_ENV];
  if (fromEnv) return fromEnv;
  if (process.env.VITEST) {
    const { inject } = await import("vitest");
    const injected = inject("parleyTestAdminDatabaseUrl");
    if (injected) return injected;
  }
  const fallback = process.env.DATABASE_URL;
  if (fallback) return fallback;
  throw new Error(
    `No test database server: set DATABASE_URL, or run under vitest with packages/db/src/testing/global-setup.ts as globalSetup`,
  );
}
