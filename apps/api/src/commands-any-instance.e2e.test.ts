import { createParleyClient, type ParleyClient, type ParleySession } from "@parley/sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiProcess,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startApiProcess,
  startE2eEnvironment,
  toolPartsOfMutation,
} from "./testing/index.js";

const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;

/**
 * Every call works on every instance with the owner's outcome (docs/behaviour.md#commands), with the
 * API's defaults: waiting Turns parked, holding nothing (docs/behaviour.md#durability). Each
 * case starts a Turn on instance A (the owner: it took the prompt, so it holds the lease) that
 * waits for an approval, and sends the call under test to instance B.
 */
describe("session calls on the instance that does not run the Turn", () => {
  let environment: E2eEnvironment;
  let second: ApiProcess;
  let alice: E2eUser;
  const clients: ParleyClient[] = [];
  const recorders: MutationRecorder[] = [];

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    second = await startApiProcess({ database_url: environment.database.url });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    for (const recorder of recorders) recorder.stop();
    await Promise.all(clients.map((client) => client.close()));
    await second?.stop();
    await environment?.close();
  });

  /** A session whose Turn, started on A, waits for an approval; `onB` is the same session via B. */
  async function waitingTurn(title: string, query = "write notes.txt: hello") {
    const onA = environment
      .clientFor(alice, environment.api.url)
      .session((await environment.clientFor(alice, environment.api.url).sessions.create({ title })).id);
    const clientB = createParleyClient({ url: second.url, token: alice.token });
    clients.push(clientB);
    const onB: ParleySession = clientB.session(onA.id);
    const feed = new MutationRecorder(onA, { after_event_id: 0 });
    recorders.push(feed);
    const { turn_id } = await onA.prompt(query);
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    return { onA, onB, feed, turn_id, interaction_id: latestInteractionIdOf(waiting) };
  }

  /** The session's lease epoch and its Turn row's state, read from the database. */
  async function turnRowOf(session_id: string) {
    const db = new pg.Client({ connectionString: environment.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ lease_epoch: number; state: string | null }>(
        `SELECT s.lease_epoch, t.state FROM sessions s
           LEFT JOIN turns t ON t.session_id = s.session_id AND t.state <> 'finished'
          WHERE s.session_id = $1`,
        [session_id],
      );
      return rows[0];
    } finally {
      await db.end();
    }
  }

  it("prompt: queued while the Turn waits, wakes nothing, and joins the Turn as a steer after the answer, once", async () => {
    const { onA, onB, feed, turn_id, interaction_id } = await waitingTurn("prompt via B");
    const parked = await turnRowOf(onA.id);
    expect(parked?.state).toBe("waiting");
    expect(await onB.prompt("list files")).toEqual({ turn_id });
    // Several command sweeps (250 ms) and a recovery pass (1 s) of both instances go by: nobody takes
    // the lease of a Turn waiting for a person (DESIGN §10.7: the epoch would rise with each take).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await turnRowOf(onA.id)).toEqual({ lease_epoch: parked?.lease_epoch, state: "waiting" });
    expect(await onA.respond({ interaction_id, response: APPROVE })).toMatchObject({ status: "resolved" });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "completed" });
    const users = (await onA.messages()).items.filter((message) => message.type === "user");
    expect(users.map((message) => message.type === "user" && message.input_type)).toEqual([
      "prompt",
      "steer",
    ]);
    const turns = feed.mutations.filter((mutation) => mutation.variant === "turn");
    expect(turns.map((mutation) => mutation.variant === "turn" && mutation.type)).toEqual([
      "start",
      "finish",
    ]);
    expect((await turnRowOf(onA.id))?.state).toBeNull();
  });

  it("respond: the answer taken by B resumes the Turn A runs", async () => {
    const { onB, feed, turn_id, interaction_id } = await waitingTurn("respond via B");
    expect(await onB.respond({ interaction_id, response: APPROVE })).toMatchObject({ status: "resolved" });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "completed" });
  });

  it("set: configured at once, effective at the Turn's next Step checkpoint with its completed Action", async () => {
    const { onA, onB, feed, turn_id, interaction_id } = await waitingTurn("set via B");
    expect(await onB.set({ security: { approval_mode: "always-allow" } })).toEqual({ queued: true });
    expect((await onA.status()).security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    await onA.respond({ interaction_id, response: APPROVE });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "completed" });
    expect((await onA.status()).security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const actions = (await onA.messages()).items.filter((message) => message.type === "action");
    expect(actions).toMatchObject([
      {
        turn_id,
        status: "completed",
        title: "Session configuration updated",
        description: "security.approval_mode: always-allow",
      },
    ]);
  });

  it("stop: stops the Turn A runs and returns once `stopped` is committed", async () => {
    const { onA, onB, feed, turn_id } = await waitingTurn("stop via B");
    expect(await onB.stop()).toEqual({
      stopped: true,
      turn_id,
      cancelled_queued_prompts: 0,
      reason: "stopped",
    });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "stopped" });
    expect(await onA.interactions()).toEqual([]);
    expect((await onA.status()).state).toBe("idle");
    expect(await onB.stop()).toEqual({ stopped: false, cancelled_queued_prompts: 0, reason: "idle" });
  });

  it("close: closes from B; the Turn stops with session_disposed and both instances refuse later calls", async () => {
    const { onA, onB, feed, turn_id } = await waitingTurn("close via B");
    await onB.close();
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "stopped" });
    const tool = feed.mutations.filter(isToolState("failed")).at(-1);
    // The tool's last durable form (the close publishes its whole message, DESIGN §10.6).
    expect((tool === undefined ? [] : toolPartsOfMutation(tool)).at(-1)?.interactions?.[0]).toMatchObject({
      status: "cancelled",
      cancel_reason: "session_disposed",
    });
    await expect(onA.prompt("hello")).rejects.toMatchObject({ code: "session_closed" });
    await expect(onB.prompt("hello")).rejects.toMatchObject({ code: "session_closed" });
    expect((await onA.info()).state).toBe("closed");
  });

  it("a stale set never comes back: always-allow via B, ask via A, prompt via B — the tool still asks", async () => {
    const onA = environment.clientFor(alice, environment.api.url);
    const session = await onA.sessions.create({ title: "stale set" });
    const clientB = createParleyClient({ url: second.url, token: alice.token });
    clients.push(clientB);
    const onB = clientB.session(session.id);
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    recorders.push(feed);
    expect(await onB.set({ security: { approval_mode: "always-allow" } })).toEqual({ queued: true });
    expect(await session.set({ security: { approval_mode: "ask" } })).toEqual({ queued: true });
    const { turn_id } = await onB.prompt("write stale.txt: must ask");
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    expect(waiting).toMatchObject({ turn_id });
    expect(await session.interactions()).toHaveLength(1);
    expect((await session.status()).security).toEqual({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    await onB.stop();
  });

  it("request_id: a retry through the other instance gets the same Turn and adds no message; another query is invalid_input", async () => {
    const onA = environment.clientFor(alice, environment.api.url);
    const session = await onA.sessions.create({ title: "request ids" });
    const clientB = createParleyClient({ url: second.url, token: alice.token });
    clients.push(clientB);
    const onB = clientB.session(session.id);
    const first = await session.prompt({ query: "hello there", request_id: "request:1" });
    expect(await onB.prompt({ query: "hello there", request_id: "request:1" })).toEqual(first);
    await expect(onB.prompt({ query: "something else", request_id: "request:1" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    recorders.push(feed);
    await feed.waitFor(
      (mutation) =>
        isTurnFinish(mutation) && mutation.variant === "turn" && mutation.turn_id === first.turn_id,
    );
    expect(await session.prompt({ query: "hello there", request_id: "request:1" })).toEqual(first);
    const users = (await session.messages()).items.filter((message) => message.type === "user");
    expect(users).toHaveLength(1);
  });

  it("request_id: a retry after the instance that took the prompt was killed (-9) and restarted gets the same Turn", async () => {
    const third = await startApiProcess({ database_url: environment.database.url });
    const onThird = createParleyClient({ url: third.url, token: alice.token });
    const session = await onThird.sessions.create({ title: "request id across a restart" });
    const first = await session.prompt({ query: "hello again", request_id: "request:restart" });
    await onThird.close();
    await third.stop("SIGKILL");
    const restarted = await startApiProcess({ database_url: environment.database.url });
    const onRestarted = createParleyClient({ url: restarted.url, token: alice.token });
    try {
      const again = onRestarted.session(session.id);
      expect(await again.prompt({ query: "hello again", request_id: "request:restart" })).toEqual(first);
      const feed = new MutationRecorder(again, { after_event_id: 0 });
      recorders.push(feed);
      await feed.waitFor(
        (mutation) =>
          mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === first.turn_id,
      );
      const turns = feed.mutations.filter(
        (mutation) => mutation.variant === "turn" && mutation.type === "start",
      );
      expect(turns).toMatchObject([{ turn_id: first.turn_id }]);
      const users = (await again.messages()).items.filter((message) => message.type === "user");
      expect(users).toHaveLength(1);
    } finally {
      await onRestarted.close();
      await restarted.stop();
    }
  });

  it("sessions waiting for a person hold no advisory lock; an answer still resumes its Turn", async () => {
    const client = environment.clientFor(alice, environment.api.url);
    const waiting: {
      session: ParleySession;
      feed: MutationRecorder;
      turn_id: string;
      interaction_id: string;
    }[] = [];
    for (let index = 0; index < 5; index += 1) {
      const session = await client.sessions.create({ title: `waiting ${index}` });
      const feed = new MutationRecorder(session, { after_event_id: 0 });
      recorders.push(feed);
      const { turn_id } = await session.prompt(`write waiting-${index}.txt: later`);
      const part = await feed.waitFor(isToolState("waiting-user"));
      waiting.push({ session, feed, turn_id, interaction_id: latestInteractionIdOf(part) });
    }
    const locksOf = async () => {
      const db = new pg.Client({ connectionString: environment.database.url });
      await db.connect();
      try {
        const { rows } = await db.query<{ held: number }>(
          `SELECT count(*)::int AS held FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND ((classid::bigint << 32) | objid::bigint)
                  IN (SELECT hashtextextended(id, 0) FROM unnest($1::text[]) AS id)`,
          [waiting.map((entry) => entry.session.id)],
        );
        return rows[0]?.held ?? -1;
      } finally {
        await db.end();
      }
    };
    // Parking follows the commit of the last request: wait for it, then nothing is held.
    while ((await locksOf()) !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await locksOf()).toBe(0);
    const [first] = waiting;
    if (!first) throw new Error("no waiting session");
    const clientB = createParleyClient({ url: second.url, token: alice.token });
    clients.push(clientB);
    await clientB
      .session(first.session.id)
      .respond({ interaction_id: first.interaction_id, response: APPROVE });
    expect(await first.feed.waitFor(isTurnFinish)).toMatchObject({
      turn_id: first.turn_id,
      status: "completed",
    });
    for (const entry of waiting.slice(1)) expect(await entry.session.interactions()).toHaveLength(1);
  });
});
