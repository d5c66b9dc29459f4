import { createTestDatabase } from "@parley/db/testing";
import { createParleyClient } from "@parley/sdk";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTokenWithCli,
  isToolState,
  isTurnFinish,
  MutationRecorder,
  startApiProcess,
} from "../testing/index.js";

/** `name{labels} value` lines of a Prometheus text exposition, by series. */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

const METRICS_TOKEN = "metrics-e2e-token";

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await response.text());
}

/**
 * Scrapes until `series` reads `value`: the database gauges are up to 5 s old (read at most every
 * 5 s), so a change shows within one interval.
 */
async function scrapeUntil(url: string, series: string, value: number): Promise<Map<string, number>> {
  const deadline = Date.now() + 12_000;
  for (;;) {
    const scraped = await scrape(url);
    if (scraped.get(series) === value || Date.now() > deadline) return scraped;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe("operators: GET /metrics and structured logs", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("reports exact figures before and after one approval cycle, and every call's log line carries its ids", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { token } = await createTokenWithCli({ database_url: database.url, user: "ops", admin: true });
    const api = await startApiProcess({
      database_url: database.url,
      env: { PARLEY_METRICS_TOKEN: METRICS_TOKEN },
    });
    cleanups.push(() => api.stop("SIGKILL"));
    const client = createParleyClient({ url: api.url, token });
    cleanups.push(() => client.close());

    const idle = await scrape(api.url);
    expect(idle.get("parley_oldest_pending_interaction_age_seconds")).toBe(0);
    expect(idle.get('parley_turns{state="running"}')).toBe(0);
    expect(idle.get('parley_turns{state="waiting"}')).toBe(0);
    expect(idle.get("parley_respond_resumed_seconds_count")).toBe(0);
    expect(idle.get("parley_live_mutations_not_carried_total")).toBe(0);

    const session = await client.sessions.create({ title: "metrics" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    cleanups.push(async () => feed.stop());
    const { turn_id } = await session.prompt("write kept.txt: measured");
    await feed.waitFor(isToolState("waiting-user"));

    const waiting = await scrapeUntil(api.url, 'parley_turns{state="waiting"}', 1);
    expect(waiting.get('parley_pending_interactions{type="approval"}')).toBe(1);
    expect(waiting.get("parley_oldest_pending_interaction_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(waiting.get('parley_turns{state="running"}')).toBe(0);
    expect(waiting.get('parley_turns{state="waiting"}')).toBe(1);
    expect(waiting.get("parley_websocket_clients")).toBe(1);

    const [pending] = await session.interactions();
    await session.respond({
      interaction_id: pending?.interaction_id ?? "",
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    await feed.waitFor(isTurnFinish);

    const done = await scrapeUntil(api.url, 'parley_turns{state="waiting"}', 0);
    expect([...done.keys()].filter((name) => name.startsWith("parley_pending_interactions{"))).toEqual([]);
    expect(done.get("parley_oldest_pending_interaction_age_seconds")).toBe(0);
    expect(done.get('parley_turns{state="running"}')).toBe(0);
    expect(done.get('parley_turns{state="waiting"}')).toBe(0);
    expect(done.get("parley_respond_resumed_seconds_count")).toBe(1);
    // Every published commit appended one replay-log row (those that carry two mutations too: the
    // Turn's start with its prompt, the last message's close with the Turn's finish). This process
    // made all of them.
    const rows = await withPool(database.url, async (pool) => {
      const { rows } = await pool.query<{ count: number }>(
        "SELECT COUNT(*)::int AS count FROM session_events",
      );
      return rows[0]?.count ?? -1;
    });
    expect(done.get('parley_commits_total{published="true"}')).toBe(rows);
    expect(done.get("parley_commit_duration_seconds_count")).toBe(
      (done.get('parley_commits_total{published="true"}') ?? 0) +
        (done.get('parley_commits_total{published="false"}') ?? 0),
    );
    expect(done.get("parley_event_bus_lag_seconds")).toBeGreaterThanOrEqual(0);

    const calls = api
      .output()
      .split("\n")
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      })
      .filter((line) => line.msg === "call");
    const prompt = calls.find((line) => line.path === "session.prompt");
    expect(prompt).toMatchObject({ session_id: session.id, turn_id, ok: true, type: "mutation" });
    expect(prompt?.request_id).toEqual(expect.any(String));
    const respond = calls.find((line) => line.path === "session.respond");
    expect(respond).toMatchObject({ session_id: session.id, ok: true });
    expect(respond?.request_id).not.toBe(prompt?.request_id);
  });
});

async function withPool<T>(url: string, run: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return await run(pool);
  } finally {
    await pool.end();
  }
}
