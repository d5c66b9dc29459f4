import { createTestDatabase } from "@parley/db/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startApiProcess } from "../testing/index.js";

/** The URL the process logged for its metrics listener, if it has logged it yet. */
function metricsListenerUrl(output: string): string | undefined {
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const record = JSON.parse(line) as { msg?: string; url?: string };
    if (record.msg === "metrics listening" && record.url) return record.url;
  }
  return undefined;
}

/**
 * The metrics listener starts after the API port (which the process's start waits for), so its
 * line may come a moment later: wait for it (bounded by the test's timeout), never assume it is there.
 */
async function awaitMetricsListener(process: { output(): string }): Promise<string> {
  for (;;) {
    const url = metricsListenerUrl(process.output());
    if (url) return url;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("operators: who may read /metrics", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function api(env: Record<string, string>) {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const started = await startApiProcess({ database_url: database.url, env });
    cleanups.push(() => started.stop("SIGKILL"));
    return started;
  }

  it("with PARLEY_METRICS_TOKEN: 401 without it or with another, 200 with it", async () => {
    const { url } = await api({ PARLEY_METRICS_TOKEN: "s3cret-metrics" });
    const without = await fetch(`${url}/metrics`);
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await without.text()).not.toContain("parley_");
    for (const authorization of ["Bearer s3cret-metric", "Bearer s3cret-metricsX", "Basic s3cret-metrics"]) {
      expect((await fetch(`${url}/metrics`, { headers: { authorization } })).status).toBe(401);
    }
    const allowed = await fetch(`${url}/metrics`, { headers: { authorization: "Bearer s3cret-metrics" } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("parley_turns");
  });

  it("with neither: the API port does not serve /metrics; with PARLEY_METRICS_PORT only that listener does", async () => {
    const plain = await api({});
    expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);

    const separate = await api({ PARLEY_METRICS_PORT: "0" });
    expect((await fetch(`${separate.url}/metrics`)).status).toBe(404);
    const listener = await awaitMetricsListener(separate);
    expect(listener).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const scraped = await fetch(`${listener}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("parley_turns");
    expect((await fetch(`${listener}/trpc/auth.whoami`)).status).toBe(404);
  });
});
