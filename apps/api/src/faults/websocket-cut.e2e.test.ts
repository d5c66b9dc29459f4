import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePorts } from "@parley/db";
import { createTestDatabase, type TestDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ApiProcess, startApiProcess } from "./api-process.js";
import { expectClientsConverged } from "./converge.js";
import {
  createAdminToken,
  isToolState,
  isTurnFinish,
  ReceivedMutations,
  readInteractions,
  sideEffectLines,
  waitUntil,
} from "./fault-checks.js";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

// Free ports, so a parallel run on the same machine cannot answer in this test's place.
const [API_PORT = 0, PROXY_PORT = 0] = await freePorts(2);
const SIDE_EFFECT_FILE = "side-effect.log";
const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;

/**
 * A subscriber's connection is cut (both TCP sockets destroyed, reconnects refused) while its
 * session's Turn is in flight; the Turn goes on and commits more mutations; then the network comes
 * back. The SDK reconnects by itself and must receive exactly the mutations it missed.
 */
describe("a WebSocket cut mid-Turn", () => {
  let database: TestDatabase;
  let workspaceRoot: string;
  let api: ApiProcess | null = null;
  let proxy: TcpProxy | null = null;
  const clients: ParleyClient[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    workspaceRoot = mkdtempSync(path.join(tmpdir(), "parley-fault-ws-"));
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await proxy?.close();
    await api?.kill("SIGKILL");
    await database.drop();
    rmSync(workspaceRoot, { recursive: true, force: true });
  });

  it("the cut subscriber reconnects and receives every missed mutation once, in order", async () => {
    const token = createAdminToken(database.url, workspaceRoot);
    api = await startApiProcess({ port: API_PORT, databaseUrl: database.url, workspaceRoot });
    proxy = await startTcpProxy({ port: PROXY_PORT, targetPort: API_PORT });
    const direct = createParleyClient({ url: api.url, token });
    const behindProxy = createParleyClient({ url: proxy.url, token });
    clients.push(direct, behindProxy);

    const session = await direct.sessions.create({ title: "ws cut" });
    const steady = new ReceivedMutations();
    const cut = new ReceivedMutations();
    session.subscribe(steady.listener, { after_event_id: 0 });
    behindProxy.session(session.id).subscribe(cut.listener, { after_event_id: 0 });

    await session.prompt(`run echo side-effect >> ${SIDE_EFFECT_FILE}`);
    await waitUntil("cut client sees waiting-user", () =>
      cut.find((mutation) => isToolState(mutation, "waiting-user")),
    );
    proxy.cut({ refusing: true });
    const seenBeforeCut = cut.lastEventId();

    const [pending] = await session.interactions();
    if (!pending) throw new Error("no pending interaction");
    await session.respond({ interaction_id: pending.interaction_id, response: APPROVE });
    await waitUntil("turn finish at the steady client", () => steady.find(isTurnFinish), 60_000);
    // The Turn finished while the cut client was offline: it has missed everything after the cut.
    expect(cut.lastEventId()).toBe(seenBeforeCut);
    expect(steady.lastEventId()).toBeGreaterThan(seenBeforeCut);

    proxy.restore();
    const total = await expectClientsConverged(database.url, session.id, [steady, cut]);
    expect(total).toBe(steady.lastEventId());
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual(["side-effect"]);
    expect((await readInteractions(database.url, session.id)).map((row) => row.status)).toEqual(["resolved"]);
  });
});
