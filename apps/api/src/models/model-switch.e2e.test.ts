import type { SessionMessage, SessionMutation } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  MutationRecorder,
  startE2eEnvironment,
} from "../testing/index.js";

function isConfig(mutation: SessionMutation): boolean {
  return mutation.variant === "session" && mutation.type === "config";
}

/** Every text part of the session's assistant messages, in order. */
function assistantTexts(messages: SessionMessage[]): string[] {
  return messages.flatMap((message) =>
    message.type === "assistant"
      ? message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))
      : [],
  );
}

/**
 * Models per session through a real API process on Postgres: `PARLEY_MODELS` lists a second demo model
 * (`demo:alt`, whose replies start with `[alt] `), so which model wrote each Step is visible.
 */
describe("models per session (PARLEY_MODELS=demo:alt)", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  const recorders: MutationRecorder[] = [];

  beforeAll(async () => {
    environment = await startE2eEnvironment({ env: { PARLEY_MODELS: "demo:alt" } });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    for (const recorder of recorders) recorder.stop();
    await environment?.close();
  });

  it("model.list gives PARLEY_MODEL first, then PARLEY_MODELS, with stable ids and labels", async () => {
    expect(await alice.client().models.list()).toEqual({
      items: [
        { model_id: "demo", label: "Demo" },
        { model_id: "demo:alt", label: "Demo (alt)" },
      ],
    });
  });

  it("an unknown model_id is invalid_input at create and at set, and nothing changes", async () => {
    const client = alice.client();
    await expect(
      client.sessions.create({ title: "bad", model_id: "openai:gpt-unknown" }),
    ).rejects.toMatchObject({ code: "invalid_input" });
    expect((await client.sessions.list()).items.filter((session) => session.title === "bad")).toEqual([]);
    const session = await client.sessions.create({ title: "unknown set" });
    await expect(session.set({ model_id: "demo:other" })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(session.set({})).rejects.toMatchObject({ code: "invalid_input" });
    expect(await session.status()).toEqual({
      session_id: session.id,
      state: "idle",
      model_id: "demo",
      effective_model_id: "demo",
      security: {
        approval_mode: "ask",
        effective_approval_mode: "ask",
        tool_allowances: [],
        effective_tool_allowances: [],
      },
    });
    expect(await session.messages()).toMatchObject({ items: [] });
  });

  it("a session created on a model answers with it; info and status carry model_id and effective_model_id", async () => {
    const session = await alice
      .client()
      .sessions.create({ title: "alt from the start", model_id: "demo:alt" });
    expect(await session.info()).toMatchObject({ model_id: "demo:alt", effective_model_id: "demo:alt" });
    const outcome = await session.run("hello");
    expect(outcome.status).toBe("completed");
    expect(outcome.text.startsWith("[alt] ")).toBe(true);
  });

  it("a switch while the Turn waits for an approval takes effect at its next Step, with one completed Action", async () => {
    const session = await alice.client().sessions.create({ title: "switch mid-Turn" });
    expect(await session.info()).toMatchObject({ model_id: "demo", effective_model_id: "demo" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    recorders.push(feed);
    const { turn_id } = await session.prompt("write notes.txt: hello");
    await feed.waitFor(isToolState("waiting-user"));
    const [pending] = await session.interactions();

    expect(await session.set({ model_id: "demo:alt" })).toEqual({ queued: true });
    expect(await session.status()).toEqual({
      session_id: session.id,
      state: "running",
      active_turn_id: turn_id,
      model_id: "demo:alt",
      effective_model_id: "demo",
      security: {
        approval_mode: "ask",
        effective_approval_mode: "ask",
        tool_allowances: [],
        effective_tool_allowances: [],
      },
    });
    expect(await session.info()).toMatchObject({ model_id: "demo:alt", effective_model_id: "demo" });
    expect(await feed.waitFor(isConfig)).toMatchObject({
      model_id: "demo:alt",
      effective_model_id: "demo",
      approval_mode: "ask",
      effective_approval_mode: "ask",
    });
    expect(await session.set({ model_id: "demo:alt" })).toEqual({ queued: false });

    await session.respond({
      interaction_id: pending?.interaction_id ?? "",
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const finish = await feed.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ turn_id, status: "completed" });
    const texts = assistantTexts((await session.messages()).items);
    expect(texts).toHaveLength(2);
    expect(texts[0]?.startsWith("[alt]")).toBe(false);
    expect(texts[1]?.startsWith("[alt] ")).toBe(true);
    expect(finish.variant === "turn" && finish.text).toBe(texts[1]);

    const actions = (await session.messages()).items.filter((message) => message.type === "action");
    expect(actions).toMatchObject([
      {
        turn_id,
        status: "completed",
        title: "Session configuration updated",
        description: "model: Demo (alt)",
      },
    ]);
    expect(
      feed.mutations.filter((mutation) => mutation.variant === "message" && mutation.type === "action"),
    ).toHaveLength(1);
    expect(feed.mutations.filter(isConfig).at(-1)).toMatchObject({
      model_id: "demo:alt",
      effective_model_id: "demo:alt",
    });
    expect(await session.status()).toMatchObject({
      state: "idle",
      model_id: "demo:alt",
      effective_model_id: "demo:alt",
    });
  });

  it("a model and a mode change in one set make one Action listing both", async () => {
    const session = await alice.client().sessions.create({ title: "both at once" });
    expect(await session.set({ model_id: "demo:alt", security: { approval_mode: "always-allow" } })).toEqual({
      queued: true,
    });
    const outcome = await session.run("hello");
    expect(outcome.text.startsWith("[alt] ")).toBe(true);
    const actions = (await session.messages()).items.filter((message) => message.type === "action");
    expect(actions).toMatchObject([
      { description: "model: Demo (alt); security.approval_mode: always-allow", status: "completed" },
    ]);
  });
});
