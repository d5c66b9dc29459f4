import type { SessionMessage, SessionMutation } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRaw,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startE2eEnvironment,
} from "./testing/index.js";

const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;
type UserMessage = Extract<SessionMessage, { type: "user" }>;
const usersOf = (items: SessionMessage[]) =>
  items.filter((message): message is UserMessage => message.type === "user");
const isQueueChange = (mutation: SessionMutation) =>
  mutation.variant === "session" && mutation.type === "queue";

/**
 * A prompt sent while a Turn waits for an approval is queued on the server (docs/behaviour.md#commands):
 * every client of the session lists it, a new connection (a reload) still does, and a withdrawal on
 * the server means it never runs.
 */
describe("queued prompts across clients", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await environment?.close();
  });

  /** A session of alice whose Turn waits for an approval, seen by two clients. */
  async function waitingSession(title: string) {
    const first = alice.client().session((await alice.client().sessions.create({ title })).id);
    const second = alice.client().session(first.id);
    const feed = new MutationRecorder(second, { after_event_id: 0 });
    const { turn_id } = await first.prompt("delete notes.txt");
    const interaction_id = latestInteractionIdOf(await feed.waitFor(isToolState("waiting-user")));
    return { first, second, feed, turn_id, interaction_id };
  }

  it("one client queues a prompt, another sees it, a reload still lists it, and a withdrawal means it never runs", async () => {
    const { first, second, feed, turn_id, interaction_id } = await waitingSession("queue and withdraw");
    const queued = await first.prompt({ query: "then say hello", request_id: "req-hello" });
    expect(queued.turn_id).toBe(turn_id);
    await feed.waitFor(isQueueChange);
    const expected = [
      { request_id: "req-hello", query: "then say hello", turn_id, created_at: expect.any(Number) },
    ];
    expect(await second.queuedPrompts()).toEqual(expected);
    const reloaded = alice.client().session(first.id);
    expect(await reloaded.queuedPrompts()).toEqual(expected);
    // A retry of the same request adds nothing.
    expect(await first.prompt({ query: "then say hello", request_id: "req-hello" })).toEqual(queued);
    expect(await reloaded.queuedPrompts()).toHaveLength(1);

    expect(await second.withdrawPrompt("req-hello")).toEqual({ status: "withdrawn" });
    expect(await first.withdrawPrompt("req-hello")).toEqual({ status: "withdrawn" });
    expect(await reloaded.queuedPrompts()).toEqual([]);
    expect(feed.mutations.filter(isQueueChange)).toHaveLength(3);
    const unknown = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.withdrawPrompt",
      kind: "mutation",
      input: { session_id: first.id, request_id: "req-unknown" },
    });
    expect(unknown.error?.parley_code).toBe("invalid_input");

    await first.respond({ interaction_id, response: APPROVE });
    const finish = await feed.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ turn_id, status: "completed" });
    const users = usersOf((await reloaded.messages()).items);
    expect(users.map((message) => message.parts.map((part) => part.text).join(""))).toEqual([
      "delete notes.txt",
    ]);
    feed.stop();
  });

  it("a queued prompt left alone joins the Turn when the answer resumes it; withdrawing it then answers applied", async () => {
    const { first, feed, turn_id, interaction_id } = await waitingSession("queue and apply");
    await first.prompt({ query: "then say hello", request_id: "req-apply" });
    await first.respond({ interaction_id, response: APPROVE });
    await feed.waitFor(isTurnFinish);
    const users = usersOf((await first.messages()).items);
    expect(users.map((message) => [message.turn_id, message.input_type])).toEqual([
      [turn_id, "prompt"],
      [turn_id, "steer"],
    ]);
    expect(await first.queuedPrompts()).toEqual([]);
    expect(await first.withdrawPrompt("req-apply")).toEqual({ status: "applied" });
    feed.stop();
  });

  it("the prompt that starts a Turn is not a queued prompt and cannot be withdrawn", async () => {
    const session = alice.client().session((await alice.client().sessions.create({ title: "starter" })).id);
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt({ query: "delete notes.txt", request_id: "req-start" });
    await feed.waitFor(isToolState("waiting-user"));
    expect(await session.queuedPrompts()).toEqual([]);
    expect(await session.withdrawPrompt("req-start")).toEqual({ status: "starts_turn" });
    feed.stop();
  });
});
