import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  type AdminInteractionEvent,
  type InteractionRequest,
  ParleyError,
  type SessionMutation,
  type ToolPart,
} from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  MutationRecorder,
  startE2eEnvironment,
  toolPartsOfMutation,
} from "../testing/index.js";

/**
 * The tool part a mutation publishes: its `part`, or the tool part of its whole message (a
 * checkpoint that created the message publishes it whole, DESIGN §10.6); each message here has one.
 */
function toolPartOf(mutation: SessionMutation): ToolPart {
  const part = toolPartsOfMutation(mutation).at(-1);
  if (!part) throw new Error("not a mutation of a tool part");
  return part;
}

/**
 * Durable mutations up to and including `last_event_id`: what every subscriber must have seen
 * identically (live ones are best effort and never replayed).
 */
function upTo(mutations: SessionMutation[], last_event_id: number): SessionMutation[] {
  return mutations.filter(
    (mutation) => mutation.event_id <= last_event_id && !("live" in mutation && mutation.live === true),
  );
}

function consecutiveFromOne(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1);
}

describe("interaction flows through the SDK over WebSocket", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("approval: pending reaches a second client, a third answers, the Turn resumes, every subscriber sees the same mutations", async () => {
    const owner = alice.client();
    const watcher = alice.client();
    const approver = environment.admin.client();

    const session = await owner.sessions.create({ title: "e2e approval" });
    const ownerFeed = new MutationRecorder(session, { after_event_id: 0 });
    const watcherFeed = new MutationRecorder(watcher.session(session.id), { after_event_id: 0 });
    const adminEvents: AdminInteractionEvent[] = [];
    const stopAdminFeed = approver.admin.subscribe(
      (event) => {
        if (event.session_id === session.id) adminEvents.push(event);
      },
      { after_event_id: 0 },
    );

    const { turn_id } = await session.prompt("write notes.txt: hello from e2e");
    expect(turn_id).toMatch(/\S/);

    const waiting = toolPartOf(await watcherFeed.waitFor(isToolState("waiting-user")));
    expect(waiting.tool_name).toBe("write_file");
    expect(waiting.interactions).toHaveLength(1);
    const interaction = waiting.interactions?.[0];
    expect(interaction?.status).toBe("pending");
    expect(interaction?.request.type).toBe("approval");
    expect(interaction?.request.payload).toMatchObject({
      operation: "tool",
      validated_input: { path: "notes.txt" },
    });
    const interaction_id = interaction?.interaction_id ?? "";

    const pendingAtWatcher: InteractionRequest[] = await watcher.session(session.id).interactions();
    expect(pendingAtWatcher).toEqual([interaction?.request]);
    expect((await watcher.session(session.id).info()).pending_interactions).toBe(1);

    const inbox = await approver.admin.interactions({ status: "pending" });
    const inboxItem = inbox.items.find((item) => item.interaction.interaction_id === interaction_id);
    expect(inboxItem).toMatchObject({
      session_id: session.id,
      session_title: "e2e approval",
      owner_id: alice.user_id,
      owner_name: "alice",
      tool_name: "write_file",
      tool_call_id: waiting.tool_call_id,
    });

    const result = await approver.session(session.id).respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(result.status).toBe("resolved");
    expect(result.interaction_id).toBe(interaction_id);

    const ownerFinish = await ownerFeed.waitFor(isTurnFinish);
    const watcherFinish = await watcherFeed.waitFor(isTurnFinish);
    expect(ownerFinish).toEqual(watcherFinish);
    expect(ownerFinish).toMatchObject({ variant: "turn", type: "finish", turn_id, status: "completed" });

    const seenByOwner = upTo(ownerFeed.mutations, ownerFinish.event_id);
    expect(seenByOwner).toEqual(upTo(watcherFeed.mutations, ownerFinish.event_id));
    expect(seenByOwner.map((mutation) => mutation.event_id)).toEqual(
      consecutiveFromOne(ownerFinish.event_id),
    );

    // The durable states of the tool, a state repeated by the close (the whole message) listed once.
    const toolStates = seenByOwner
      .flatMap(toolPartsOfMutation)
      .map((part) => part.state)
      .filter((state, index, states) => index === 0 || states[index - 1] !== state);
    expect(toolStates.slice(toolStates.indexOf("waiting-user"))).toEqual([
      "waiting-user",
      "running",
      "completed",
    ]);
    const completed = toolPartOf(seenByOwner.filter(isToolState("completed")).at(-1) as SessionMutation);
    expect(completed.interactions?.[0]).toMatchObject({
      interaction_id,
      status: "resolved",
      responded_by: environment.admin.user_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });

    expect(await readFile(path.join(environment.api.workspace_root, session.id, "notes.txt"), "utf8")).toBe(
      "hello from e2e",
    );
    expect(await session.interactions()).toEqual([]);

    await expect(
      watcher.session(session.id).respond({
        interaction_id,
        response: { type: "approval", outcome: "denied", payload: { decision: "denied" } },
      }),
    ).rejects.toMatchObject({ name: "ParleyError", code: "interaction_not_pending" });

    while (adminEvents.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(adminEvents.slice(0, 2).map((event) => [event.kind, event.interaction.interaction_id])).toEqual([
      ["created", interaction_id],
      ["resolved", interaction_id],
    ]);
    expect(adminEvents[1]?.interaction.responded_by).toBe(environment.admin.user_id);

    stopAdminFeed();
    ownerFeed.stop();
    watcherFeed.stop();
    expect(ownerFeed.errors).toEqual([]);
    expect(watcherFeed.errors).toEqual([]);
  });

  it("question: an invalid answer is rejected and stays pending; a complete answer from a third client resumes the Turn", async () => {
    const owner = alice.client();
    const watcher = alice.client();
    const answerer = alice.client();

    const session = await owner.sessions.create({ title: "e2e question" });
    const ownerFeed = new MutationRecorder(session, { after_event_id: 0 });
    const watcherFeed = new MutationRecorder(watcher.session(session.id), { after_event_id: 0 });

    const { turn_id } = await session.prompt("ask me about deploy");
    const waiting = toolPartOf(await watcherFeed.waitFor(isToolState("waiting-user")));
    expect(waiting.tool_name).toBe("ask_question");
    const request = waiting.interactions?.[0]?.request;
    if (request === undefined) throw new Error("the waiting tool carries no interaction");
    expect(request.type).toBe("question");
    const questions = (request.payload as { questions: { question_id: string; type: string }[] }).questions;
    expect(questions.map((question) => question.type)).toEqual(["single_select", "multi_select", "text"]);
    const [region, checks, notes] = questions;
    const interaction_id = request.interaction_id;

    const handle = answerer.session(session.id);
    const invalid = handle.respond({
      interaction_id,
      response: {
        type: "question",
        outcome: "resolved",
        payload: { answers: [{ question_id: region?.question_id ?? "", value: "mars" }] },
      },
    });
    await expect(invalid).rejects.toBeInstanceOf(ParleyError);
    await expect(invalid).rejects.toMatchObject({ code: "interaction_invalid_response" });
    expect((await handle.interactions()).map((pending) => pending.interaction_id)).toEqual([interaction_id]);

    await expect(
      handle.respond({
        interaction_id,
        response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      }),
    ).rejects.toMatchObject({ code: "interaction_type_mismatch" });

    const answers = [
      { question_id: region?.question_id ?? "", value: "eu" },
      { question_id: checks?.question_id ?? "", value: ["tests", "smoke"] },
      { question_id: notes?.question_id ?? "", value: "Keep the old version running." },
    ];
    const result = await handle.respond({
      interaction_id,
      response: { type: "question", outcome: "resolved", payload: { answers } },
    });
    expect(result).toMatchObject({ status: "resolved", interaction_id });

    const ownerFinish = await ownerFeed.waitFor(isTurnFinish);
    const watcherFinish = await watcherFeed.waitFor(isTurnFinish);
    expect(ownerFinish).toMatchObject({ turn_id, status: "completed" });
    expect(upTo(ownerFeed.mutations, ownerFinish.event_id)).toEqual(
      upTo(watcherFeed.mutations, watcherFinish.event_id),
    );

    const completed = toolPartOf(
      ownerFeed.mutations.filter(isToolState("completed")).at(-1) as SessionMutation,
    );
    expect(completed.output).toEqual({ status: "resolved", answers });
    expect(completed.interactions?.[0]).toMatchObject({ status: "resolved", responded_by: alice.user_id });

    ownerFeed.stop();
    watcherFeed.stop();
  });
  it("stop cancels the pending approval (turn_stopped); close cancels with session_disposed and then refuses commands but not reads", async () => {
    const owner = alice.client();
    const session = await owner.sessions.create({ title: "e2e stop and close" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });

    const first = await session.prompt("delete notes.txt");
    const firstWaiting = toolPartOf(await feed.waitFor(isToolState("waiting-user")));
    const stopped = await session.stop();
    expect(stopped).toMatchObject({ stopped: true, turn_id: first.turn_id, reason: "stopped" });
    const firstFinish = await feed.waitFor(
      (mutation) =>
        isTurnFinish(mutation) && mutation.variant === "turn" && mutation.turn_id === first.turn_id,
    );
    expect(firstFinish).toMatchObject({ status: "stopped" });
    const cancelledByStop = toolPartOf(
      feed.mutations.filter(
        (mutation) =>
          isToolState("failed")(mutation) && toolPartOf(mutation).tool_call_id === firstWaiting.tool_call_id,
      )[0] as SessionMutation,
    );
    expect(cancelledByStop.interactions?.[0]).toMatchObject({
      status: "cancelled",
      cancel_reason: "turn_stopped",
    });
    expect(await session.interactions()).toEqual([]);

    const second = await session.prompt("delete notes.txt");
    const secondWaiting = toolPartOf(
      await feed.waitFor(
        (mutation) =>
          isToolState("waiting-user")(mutation) &&
          toolPartOf(mutation).tool_call_id !== firstWaiting.tool_call_id,
      ),
    );
    const pendingId = secondWaiting.interactions?.[0]?.interaction_id ?? "";
    await session.close();
    const closed = await feed.waitFor(
      (mutation) => mutation.variant === "session" && mutation.type === "closed",
    );
    const cancelledByClose = toolPartOf(
      feed.mutations.filter(
        (mutation) =>
          isToolState("failed")(mutation) && toolPartOf(mutation).tool_call_id === secondWaiting.tool_call_id,
      )[0] as SessionMutation,
    );
    expect(cancelledByClose.interactions?.[0]).toMatchObject({
      interaction_id: pendingId,
      status: "cancelled",
      cancel_reason: "session_disposed",
    });
    expect(closed.event_id).toBeGreaterThan(0);
    expect(
      feed.mutations.some(
        (mutation) =>
          isTurnFinish(mutation) && mutation.variant === "turn" && mutation.turn_id === second.turn_id,
      ),
    ).toBe(true);

    const approve = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;
    await expect(session.prompt("list files")).rejects.toMatchObject({ code: "session_closed" });
    await expect(session.respond({ interaction_id: pendingId, response: approve })).rejects.toMatchObject({
      code: "session_closed",
    });
    await expect(session.set({ security: { approval_mode: "always-allow" } })).rejects.toMatchObject({
      code: "session_closed",
    });
    await expect(session.stop()).rejects.toMatchObject({ code: "session_closed" });
    const info = await session.info();
    expect(info.state).toBe("closed");
    expect(info.closed_at).toEqual(expect.any(Number));
    expect(info.pending_interactions).toBe(0);
    expect((await session.messages()).items.length).toBeGreaterThan(0);
    feed.stop();
  });
});
