import { createTestDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { withReferences } from "@parley/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ApiProcess,
  createTokenWithCli,
  isToolState,
  isTurnFinish,
  MutationRecorder,
  startApiProcess,
} from "./testing/index.js";

describe("process lifecycle: CLI, graceful shutdown, restart, health", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("a CLI token made with the API stopped, a pending approval and an open subscription all survive a graceful restart", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());

    const created = await createTokenWithCli({ database_url: database.url, user: "ops", admin: true });
    expect(created.stdout.trimEnd().split("\n").at(-1)).toBe(created.token);
    expect(created.token).toMatch(/^\S{20,}$/);
    const again = await createTokenWithCli({ database_url: database.url, user: "ops", admin: true });
    expect(again.token).not.toBe(created.token);

    const clients: ParleyClient[] = [];
    cleanups.push(() => Promise.all(clients.map((client) => client.close())));
    const connect = (api: ApiProcess, token: string) => {
      const client = createParleyClient({ url: api.url, token });
      clients.push(client);
      return client;
    };

    // A fixed port (from this suite's range 4200–4299) so that a subscriber can follow the restart.
    const port = { PORT: "4231" };
    const first = await startApiProcess({ database_url: database.url, env: port });
    cleanups.push(() => first.stop("SIGKILL"));
    const firstClient = connect(first, again.token);
    expect((await firstClient.auth.whoami()).name).toBe("ops");
    expect((await firstClient.auth.whoami()).role).toBe("admin");
    const session = await firstClient.sessions.create({ title: "survives restart" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("write kept.txt: after restart");
    await feed.waitFor(isToolState("waiting-user"));

    expect(await first.stop("SIGTERM")).toBe(0);
    expect(first.output()).toContain("shutdown complete");

    const second = await startApiProcess({ database_url: database.url, env: port });
    cleanups.push(() => second.stop("SIGKILL"));
    const secondClient = connect(second, created.token);
    const resumed = secondClient.session(session.id);
    const pending = await resumed.interactions();
    expect(pending).toHaveLength(1);
    const replay = new MutationRecorder(resumed, { after_event_id: 0 });
    const result = await resumed.respond({
      interaction_id: pending[0]?.interaction_id ?? "",
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(result.status).toBe("resolved");
    const finish = await replay.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ status: "completed" });
    expect(await feed.waitFor(isTurnFinish)).toEqual(finish);
    expect(feed.mutations.map(withReferences)).toEqual(
      replay.mutations.filter((mutation) => mutation.event_id <= finish.event_id).map(withReferences),
    );
    feed.stop();
    expect(replay.eventIds()).toEqual(
      Array.from({ length: replay.mutations.length }, (_, index) => index + 1),
    );
    replay.stop();
  });

  it("/healthz answers 503 once the database is gone", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const api = await startApiProcess({ database_url: database.url });
    cleanups.push(() => api.stop("SIGKILL"));
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    await database.drop();
    // The health check is shared for 0.5 s (so /healthz cannot flood the pool): the answer turns
    // once the cached result is older than that.
    await expect
      .poll(async () => (await fetch(`${api.url}/healthz`)).status, { timeout: 10_000, interval: 200 })
      .toBe(503);
    const response = await fetch(`${api.url}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ok: false });
  });
});
