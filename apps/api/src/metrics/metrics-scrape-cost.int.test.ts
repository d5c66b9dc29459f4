import { createDatabase, type ParleyDatabase } from "@parley/db";
import { createTestDatabase } from "@parley/db/testing";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ApiMetrics, DATABASE_GAUGES_INTERVAL_MS, type OperatorStats } from "./api-metrics.js";
import { startMetricsServer } from "./metrics-http.js";

/** The real operator stats of a database, counting the statements they run (one per call). */
function countingStats(stats: OperatorStats): { stats: OperatorStats; queries: () => number } {
  let queries = 0;
  return {
    queries: () => queries,
    stats: {
      pendingByType: () => {
        queries += 1;
        return stats.pendingByType();
      },
      turns: () => {
        queries += 1;
        return stats.turns();
      },
    },
  };
}

describe("/metrics scrape cost", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("a hundred scrapes in a second run the two gauge queries once; the next reading comes 5 s later", async () => {
    const test = await createTestDatabase();
    cleanups.push(() => test.drop());
    const database: ParleyDatabase = await createDatabase({ url: test.url, migrate: false });
    cleanups.push(() => database.close());
    let clock = 1_000_000;
    const metrics = new ApiMetrics({ now: () => clock });
    const counted = countingStats(database.stats);
    metrics.readStatsFrom(counted.stats);
    const server = await startMetricsServer({
      metrics,
      port: 0,
      host: "127.0.0.1",
      logger: pino({ level: "silent" }),
    });
    cleanups.push(() => server.close());
    const scrape = async () => {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      return response.text();
    };

    // A hundred scrapes over one second (10 ms of clock apart), half of them at once.
    await Promise.all(Array.from({ length: 50 }, scrape));
    for (let index = 0; index < 50; index += 1) {
      clock += 10;
      await scrape();
    }
    expect(counted.queries()).toBe(2);

    clock = 1_000_000 + DATABASE_GAUGES_INTERVAL_MS - 1;
    await scrape();
    expect(counted.queries()).toBe(2);
    clock = 1_000_000 + DATABASE_GAUGES_INTERVAL_MS;
    const text = await scrape();
    expect(counted.queries()).toBe(4);
    expect(text).toContain('parley_turns{state="waiting"} 0');
  });
});
