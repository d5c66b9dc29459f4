import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePorts, migrateDatabase } from "@parley/db";
import { createParleyClient, type ParleyClient, ParleyError } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiProcess, startApiProcess } from "./api-process.js";
import { expectClientsConverged } from "./converge.js";
import {
  createAdminToken,
  isToolState,
  isTurnFinish,
  ReceivedMutations,
  readInteractions,
  readToolParts,
  sideEffectLines,
  waitUntil,
  withClient,
} from "./fault-checks.js";
import { type PrivatePostgres, startPrivatePostgres } from "./private-postgres.js";

// Free ports, so a parallel run on the same machine cannot answer in this test's place.
const [POSTGRES_PORT = 0, API_PORT = 0] = await freePorts(2);
const SIDE_EFFECT_FILE = "side-effect.log";
const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;

/**
 * PostgreSQL restarts (fast shutdown: every connection is terminated) while a session's Turn waits
 * for approval. The server is a private cluster of this test on its own port — never the machine's
 * shared one. The API must come back by itself: the answer sent after the restart resumes the tool
 * once, and the subscriber that stayed connected to the API receives every mutation.
 */
describe("Postgres restarted under a running session", () => {
  let postgres: PrivatePostgres;
  let databaseUrl: string;
  let workspaceRoot: string;
  let api: ApiProcess | null = null;
  const clients: ParleyClient[] = [];

  beforeAll(async () => {
    postgres = await startPrivatePostgres({ port: POSTGRES_PORT });
    await withClient(postgres.url(), (client) => client.query("CREATE DATABASE parley_fault"));
    databaseUrl = postgres.url("parley_fault");
    await migrateDatabase(databaseUrl);
    workspaceRoot = mkdtempSync(path.join(tmpdir(), "parley-fault-ws-"));
  });

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await api?.kill("SIGKILL");
    await postgres?.destroy();
    if (workspaceRoot) rmSync(workspaceRoot, { recursive: true, force: true });
  });

  it("the pending interaction survives, the answer after the restart resumes the tool once, clients converge", async () => {
    const token = createAdminToken(databaseUrl, workspaceRoot);
    api = await startApiProcess({ port: API_PORT, databaseUrl, workspaceRoot });
    const client = createParleyClient({ url: api.url, token });
    clients.push(client);
    const session = await client.sessions.create({ title: "postgres restart" });
    const received = new ReceivedMutations();
    session.subscribe(received.listener, { after_event_id: 0 });
    await session.prompt(`run echo side-effect >> ${SIDE_EFFECT_FILE}`);
    await waitUntil("waiting-user", () => received.find((mutation) => isToolState(mutation, "waiting-user")));
    const [pending] = await session.interactions();
    if (!pending) throw new Error("no pending interaction");

    await postgres.restart();

    // Requests that reach the API while its connections are being replaced may fail with a
    // transport or internal error; a client retries those. A domain answer ends the retries.
    const result = await waitUntil(
      "respond accepted after the restart",
      async () => {
        try {
          return await session.respond({ interaction_id: pending.interaction_id, response: APPROVE });
        } catch (error) {
          if (error instanceof ParleyError) throw error;
          return undefined;
        }
      },
      60_000,
    );
    expect(result.status).toBe("resolved");
    await waitUntil("turn finish", () => received.find(isTurnFinish), 60_000);

    const tools = await readToolParts(databaseUrl, session.id);
    expect(tools.map((tool) => [tool.tool_name, tool.state, tool.error])).toEqual([
      ["shell", "completed", undefined],
    ]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual(["side-effect"]);
    expect((await readInteractions(databaseUrl, session.id)).map((row) => row.status)).toEqual(["resolved"]);
    const late = new ReceivedMutations();
    session.subscribe(late.listener, { after_event_id: 0 });
    await expectClientsConverged(databaseUrl, session.id, [received, late]);
  });
});
