import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePorts } from "@parley/db";
import { createTestDatabase, type TestDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient, type ParleySession } from "@parley/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ApiProcess, startApiProcess } from "./api-process.js";
import { expectClientsConverged } from "./converge.js";
import {
  createAdminToken,
  describeSession,
  isToolState,
  isTurnFinish,
  ReceivedMutations,
  readInteractions,
  readToolParts,
  sideEffectLines,
  waitUntil,
} from "./fault-checks.js";
import type { FaultPhase } from "./kill-switch.js";

// A free port, found once: each restarted API comes back on the one its clients know.
const [PORT = 0] = await freePorts(1);
const SIDE_EFFECT_FILE = "side-effect.log";
/** The demo model turns "run <command>" into one `shell` call, which asks for approval first. */
const PROMPT = `run echo side-effect >> ${SIDE_EFFECT_FILE}`;
const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;

/**
 * kill -9 of the API at each point of an interaction's life (docs/behaviour.md#durability: a pending
 * Interaction survives, and the approved side effect runs once). The kill points are
 * exact, not timed: the kill switch (kill-switch.ts) is preloaded into the API process and fires on
 * the COMMIT of the transaction that writes the Interaction. After each crash a second API process
 * starts on the same port and database; the SDK clients reconnect by themselves.
 */
describe("kill -9 of the API during an interaction's life", () => {
  let database: TestDatabase;
  let workspaceRoot: string;
  let token: string;
  const processes: ApiProcess[] = [];
  const clients: ParleyClient[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    workspaceRoot = mkdtempSync(path.join(tmpdir(), "parley-fault-ws-"));
    token = createAdminToken(database.url, workspaceRoot);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(processes.splice(0).map((api) => api.kill("SIGKILL")));
    await database.drop();
    rmSync(workspaceRoot, { recursive: true, force: true });
  });

  const startApi = async (fault?: FaultPhase) => {
    const api = await startApiProcess({
      port: PORT,
      databaseUrl: database.url,
      workspaceRoot,
      ...(fault ? { fault } : {}),
    });
    processes.push(api);
    return api;
  };

  /** A client subscribed from event 0, and a session that was prompted to run the side effect. */
  const openObservedSession = async (url: string) => {
    const client = createParleyClient({ url, token });
    clients.push(client);
    const session = await client.sessions.create({ title: "fault" });
    const received = new ReceivedMutations();
    session.subscribe(received.listener, { after_event_id: 0 });
    return { client, session, received };
  };

  const waitForPending = async (session: ParleySession, received: ReceivedMutations) => {
    await waitUntil("waiting-user", () => received.find((mutation) => isToolState(mutation, "waiting-user")));
    const pending = await session.interactions();
    expect(pending).toHaveLength(1);
    return pending[0] as NonNullable<(typeof pending)[number]>;
  };

  const waitForTurnFinish = (session: ParleySession, received: ReceivedMutations) =>
    waitUntil(
      "turn finish",
      () => received.find(isTurnFinish),
      60_000,
      async () => ({
        session: await describeSession(database.url, session.id),
        api: processes.map((api) => api.output().slice(-3000)),
      }),
    );

  const expectSideEffectOnceAndConverged = async (session: ParleySession, received: ReceivedMutations) => {
    await waitForTurnFinish(session, received);
    const tools = await readToolParts(database.url, session.id);
    expect(tools.map((tool) => [tool.tool_name, tool.state, tool.error])).toEqual([
      ["shell", "completed", undefined],
    ]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual(["side-effect"]);
    const interactions = await readInteractions(database.url, session.id);
    expect(interactions.map((row) => row.status)).toEqual(["resolved"]);
    const late = new ReceivedMutations();
    session.subscribe(late.listener, { after_event_id: 0 });
    await expectClientsConverged(database.url, session.id, [received, late]);
  };

  it("before the request's COMMIT: nothing was asked; the Step was live only, so the new process ends the Turn interrupted and the tool never runs", async () => {
    const first = await startApi("request-commit");
    const { session, received } = await openObservedSession(first.url);
    // The kill may land before or after the prompt's HTTP answer: only the committed state counts.
    await session.prompt(PROMPT).catch(() => undefined);
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await readInteractions(database.url, session.id)).toEqual([]);
    expect(received.find((mutation) => isToolState(mutation, "waiting-user"))).toBeUndefined();

    // The Interaction's creation was the Step's first commit (DESIGN §10.6): the assistant message,
    // its tool `ready`, were live only and died with the process. Recovery finds a started Turn with
    // no committed output and ends it interrupted (docs/behaviour.md#durability); nothing re-runs.
    await startApi();
    expect(await waitForTurnFinish(session, received)).toMatchObject({
      status: "failed",
      error: "Turn interrupted by server restart",
    });
    expect(await readToolParts(database.url, session.id)).toEqual([]);
    expect(await readInteractions(database.url, session.id)).toEqual([]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual([]);
    const late = new ReceivedMutations();
    session.subscribe(late.listener, { after_event_id: 0 });
    await expectClientsConverged(database.url, session.id, [received, late]);
  });

  it("while pending: the interaction survives, the answer given to the new process resumes the tool once", async () => {
    const first = await startApi();
    const { session, received } = await openObservedSession(first.url);
    await session.prompt(PROMPT);
    const pending = await waitForPending(session, received);
    expect(await first.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    await startApi();
    expect(await session.interactions()).toEqual([pending]);
    const result = await session.respond({ interaction_id: pending.interaction_id, response: APPROVE });
    expect(result.status).toBe("resolved");
    await expectSideEffectOnceAndConverged(session, received);
  });

  it("during respond's transaction: the answer is rolled back, stays pending, and a second answer resumes once", async () => {
    const first = await startApi("respond-commit");
    const { session, received } = await openObservedSession(first.url);
    await session.prompt(PROMPT);
    const pending = await waitForPending(session, received);
    await expect(
      session.respond({ interaction_id: pending.interaction_id, response: APPROVE }),
    ).rejects.toThrow();
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect((await readInteractions(database.url, session.id)).map((row) => row.status)).toEqual(["pending"]);

    await startApi();
    expect(await session.interactions()).toEqual([pending]);
    await session.respond({ interaction_id: pending.interaction_id, response: APPROVE });
    await expectSideEffectOnceAndConverged(session, received);
  });

  it("right after respond's COMMIT, which claimed the Turn: the tool counts as started, so the new process fails it as interrupted and never runs it twice", async () => {
    const first = await startApi("respond-committed");
    const { session, received } = await openObservedSession(first.url);
    await session.prompt(PROMPT);
    const pending = await waitForPending(session, received);
    await expect(
      session.respond({ interaction_id: pending.interaction_id, response: APPROVE }),
    ).rejects.toThrow();
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    // The answer's one commit (DESIGN §10.6 checkpoint 3) resolved it, marked the tool `running`,
    // handed the answer over and claimed the Turn for the process that died.
    const answered = await readInteractions(database.url, session.id);
    expect(answered.map((row) => [row.status, row.resumed_at !== null])).toEqual([["resolved", true]]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual([]);

    await startApi();
    const finish = await waitForTurnFinish(session, received);
    expect(finish).toMatchObject({ status: "completed" });
    const tools = await readToolParts(database.url, session.id);
    expect(tools.map((tool) => [tool.tool_name, tool.state, tool.error])).toEqual([
      ["shell", "failed", "Tool interrupted by server restart"],
    ]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual([]);
    await expect(
      session.respond({ interaction_id: pending.interaction_id, response: APPROVE }),
    ).rejects.toMatchObject({
      code: "interaction_not_pending",
    });
  });

  it("an always-allow tool killed while `running`: it fails as interrupted, its side effect happened once, the Turn finishes", async () => {
    const first = await startApi();
    const { session, received } = await openObservedSession(first.url);
    await session.set({ security: { approval_mode: "always-allow" } });
    // The side effect, then a wait long enough for the kill to land while the tool runs.
    await session.prompt(`run echo side-effect >> ${SIDE_EFFECT_FILE} && sleep 60`);
    await waitUntil("the tool committed running", () =>
      received.find((mutation) => isToolState(mutation, "running")),
    );
    await waitUntil("the side effect", () =>
      sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE).length > 0 ? true : undefined,
    );
    expect(await first.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

    // A part found `running` after a crash is failed and never executed again (docs/behaviour.md#durability).
    await startApi();
    const finish = await waitForTurnFinish(session, received);
    expect(finish).toMatchObject({ status: "completed" });
    const tools = await readToolParts(database.url, session.id);
    expect(tools.map((tool) => [tool.tool_name, tool.state, tool.error])).toEqual([
      ["shell", "failed", "Tool interrupted by server restart"],
    ]);
    expect(sideEffectLines(workspaceRoot, session.id, SIDE_EFFECT_FILE)).toEqual(["side-effect"]);
    expect(await readInteractions(database.url, session.id)).toEqual([]);
  });
});
