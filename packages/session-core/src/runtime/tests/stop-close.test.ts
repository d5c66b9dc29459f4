import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { ParleyError } from "../../errors.js";
import type { InteractionResult } from "../../schema/interaction.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { AskQuestionsTool } from "../../tools/ask-question-tool.js";
import { createApprovalTool, createRequestTool } from "./tools.js";

async function blockedOnApproval() {
  const approval = createApprovalTool();
  const model = createScriptedModel([
    [{ text: "checking" }, { tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
    [{ text: "never" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
  const session = await harness.createSession();
  const turn = await session.prompt({ query: "delete a.txt" });
  const interaction_id = await harness.pendingInteraction("call_1");
  return { harness, model, session, turn, interaction_id, ...approval };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ParleyError) return error.code;
    throw error;
  }
  return "resolved";
}

describe("stop and close", () => {
  it("G44: cancelling commits the cancelled state before the waiter settles", async () => {
    const observed: { result: InteractionResult; stored: string | undefined }[] = [];
    let harness!: RuntimeHarness;
    const asker = createRequestTool((context) => ({
      type: "question",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      payload: { questions: [] },
    }));
    const wrapped = {
      ...asker.tool,
      async execute(_input: unknown, context: Parameters<typeof asker.tool.execute>[1]) {
        const handle = await context.interactions.request({
          type: "question",
          turn_id: context.turn_id,
          tool_call_id: context.tool_call_id,
          payload: { questions: [] },
        });
        const result = await handle.result;
        const stored = await harness.store.getInteraction(handle.interaction_id);
        observed.push({ result, stored: stored?.interaction.status });
        return null;
      },
    };
    const model = createScriptedModel([[{ tool_call: { id: "call-cancel", name: "asker" } }]]);
    harness = new RuntimeHarness({ model, tools: { asker: wrapped } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call-cancel");
    await session.stop();
    await turn.finished;
    await new Promise((resolve) => setImmediate(resolve));
    expect(observed).toEqual([
      { result: { status: "cancelled", interaction_id, reason: "turn_stopped" }, stored: "cancelled" },
    ]);
    expect(await harness.tool(session.id, "call-cancel")).toMatchObject({
      state: "failed",
      error: "Interaction cancelled",
      interactions: [{ status: "cancelled", cancel_reason: "turn_stopped" }],
    });
  });

  it("G45: stop while waiting cancels the Interaction, fails the tool and stops the Turn without an error message", async () => {
    const { harness, session, turn, interaction_id, effects } = await blockedOnApproval();
    expect(await session.stop()).toEqual({
      stopped: true,
      turn_id: turn.id,
      cancelled_queued_prompts: 0,
      reason: "stopped",
    });
    expect(await turn.finished).toEqual({
      turn_id: turn.id,
      text: "",
      success: false,
      error: "Turn stopped",
    });
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({ state: "failed", error: "Interaction cancelled" });
    expect(tool.interactions?.[0]).toMatchObject({
      interaction_id,
      status: "cancelled",
      cancel_reason: "turn_stopped",
    });
    expect(effects).toEqual([]);
    const finish = harness
      .mutations(session.id)
      .filter((mutation) => mutation.variant === "turn" && mutation.type === "finish");
    expect(finish).toMatchObject([{ status: "stopped", turn_id: turn.id }]);
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["user", "assistant"]);
    expect(messages[1]).toMatchObject({ status: "stopped" });
    expect(
      messages[1]?.type === "assistant" && messages[1].parts.find((part) => part.type === "text"),
    ).toMatchObject({
      text: "checking",
      state: "done",
    });
    expect(await session.status()).toMatchObject({ state: "idle" });
  });

  it("G46: answering the stopped Interaction is interaction_not_pending (already cancelled)", async () => {
    const { session, turn, interaction_id } = await blockedOnApproval();
    await session.stop();
    await turn.finished;
    await expect(
      session.respond({
        interaction_id,
        response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      }),
    ).rejects.toThrow(`Session Interaction is already cancelled: ${interaction_id}`);
  });

  it("G47: stop while ask_question waits fails the tool (Interaction cancelled) and stops the Turn", async () => {
    const model = createScriptedModel([
      [
        {
          tool_call: {
            id: "call_q",
            name: "ask_question",
            input: { title: "t", questions: [{ question: "q?", type: "text" }] },
          },
        },
      ],
    ]);
    const harness = new RuntimeHarness({ model, tools: { ask_question: AskQuestionsTool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "ask" });
    await harness.pendingInteraction("call_q");
    await session.stop();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    expect(await harness.tool(session.id, "call_q")).toMatchObject({
      state: "failed",
      error: "Interaction cancelled",
    });
  });

  it("G48: close cancels pending Interactions with session_disposed and refuses later calls", async () => {
    const { harness, session, turn, interaction_id } = await blockedOnApproval();
    await session.close();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({
      state: "failed",
      interactions: [{ status: "cancelled", cancel_reason: "session_disposed" }],
    });
    const approve = {
      interaction_id,
      response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
    };
    expect(await codeOf(session.respond(approve))).toBe("session_closed");
    expect(await codeOf(session.prompt({ query: "again" }))).toBe("session_closed");
    expect(await codeOf(session.stop())).toBe("session_closed");
    expect(await codeOf(session.set({ security: { approval_mode: "always-allow" } }))).toBe("session_closed");
    const closed = harness
      .mutations(session.id)
      .filter((mutation) => mutation.variant === "session" && mutation.type === "closed");
    expect(closed).toHaveLength(1);
    expect((await session.info()).state).toBe("closed");
    expect((await session.messages()).items.length).toBe(2);
  });

  it("G48 across processes: closing in another process stops the owner's Turn with session_disposed", async () => {
    const { harness, session, turn } = await blockedOnApproval();
    const remote = await harness.runtime("B").openSession(session.id);
    await remote?.close();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    await harness.waitFor((mutation) => mutation.variant === "turn" && mutation.type === "finish");
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "failed",
      interactions: [{ status: "cancelled", cancel_reason: "session_disposed" }],
    });
  });

  it("G50: a provider failure before any output leaves only the user and error messages", async () => {
    const model = createScriptedModel([[{ error: "provider down", as: "reject" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hi" });
    expect(await turn.finished).toEqual({
      turn_id: turn.id,
      text: "",
      success: false,
      error: "provider down",
    });
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["user", "error"]);
    expect(messages[1]).toMatchObject({
      code: "turn_execution_failed",
      message: "provider down",
      scope: "turn",
    });
    const finish = harness
      .mutations(session.id)
      .filter((mutation) => mutation.variant === "turn" && mutation.type === "finish");
    expect(finish).toMatchObject([{ status: "failed", error: "provider down" }]);
  });

  it("G51: partial text then a failure keeps the failed assistant message before the error", async () => {
    const model = createScriptedModel([
      [{ text: "partial response" }, { error: "stream broke", as: "stream" }],
    ]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hi" });
    expect(await turn.finished).toMatchObject({ success: false, error: "stream broke" });
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["user", "assistant", "error"]);
    expect(messages[1]).toMatchObject({ status: "failed" });
    expect(
      messages[1]?.type === "assistant" && messages[1].parts.find((part) => part.type === "text"),
    ).toMatchObject({
      text: "partial response",
    });
  });

  it("G52: a tool still input-streaming when the message fails is failed with the Turn error", async () => {
    const model = createScriptedModel([
      [
        { tool_call: { id: "call_p", name: "delete_file", input: { path: "a" }, partial: true } },
        { error: "cut off", as: "stream" },
      ],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: createApprovalTool().tool } });
    const session = await harness.createSession();
    await (await session.prompt({ query: "go" })).finished;
    expect(await harness.tool(session.id, "call_p")).toMatchObject({ state: "failed", error: "cut off" });
  });

  it("G53: stop on an idle session answers idle and never throws", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    expect(await session.stop()).toEqual({ stopped: false, cancelled_queued_prompts: 0, reason: "idle" });
    expect(await session.stop()).toEqual({ stopped: false, cancelled_queued_prompts: 0, reason: "idle" });
  });

  it("G54, G67: stop cancels queued prompts (with the Turn they joined) but keeps the config command", async () => {
    const model = createScriptedModel([[{ block: "first" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const running = await session.prompt({ query: "first" });
    await model.reached("first");
    const queued = session.prompt({ query: "second" });
    expect(await session.set({ security: { approval_mode: "always-allow" } })).toEqual({ queued: true });
    const stopped = await session.stop();
    expect(stopped).toMatchObject({ stopped: true, turn_id: running.id, cancelled_queued_prompts: 1 });
    // The prompt returned as soon as it was queued, with the Turn it joined; that Turn was stopped
    // before the prompt was applied, so it is cancelled with the Turn's finish.
    const cancelled = await queued;
    expect(cancelled.id).toBe(running.id);
    expect(await cancelled.finished).toEqual({
      turn_id: running.id,
      text: "",
      success: false,
      error: "Turn stopped",
    });
    const users = (await harness.messages(session.id)).filter((message) => message.type === "user");
    expect(users).toHaveLength(1);
    expect((await session.status()).security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const next = await session.prompt({ query: "third" });
    await next.finished;
    expect((await session.status()).security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const actions = (await harness.messages(session.id)).filter((message) => message.type === "action");
    expect(actions).toMatchObject([
      { turn_id: next.id, description: "security.approval_mode: always-allow" },
    ]);
  });

  it("stop mid-stream keeps the text streamed so far (the close commits the live state, DESIGN §10.6)", async () => {
    let reached!: () => void;
    const midText = new Promise<void>((resolve) => {
      reached = resolve;
    });
    // A provider that stops in the middle of a text part (no text-end), until it is aborted.
    const model: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "test",
      modelId: "mid-text",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "text-start", id: "t" });
            controller.enqueue({ type: "text-delta", id: "t", delta: "partial " });
            controller.enqueue({ type: "text-delta", id: "t", delta: "answer" });
            abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason));
            setTimeout(reached, 0);
          },
        }),
      }),
    };
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hi" });
    await midText;
    await harness.waitForLive((mutation) => mutation.variant === "delta" && mutation.delta === "answer");
    await session.stop();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    const [assistant] = await harness.assistants(session.id);
    expect(assistant?.status).toBe("stopped");
    expect(assistant?.parts.find((part) => part.type === "text")).toMatchObject({
      text: "partial answer",
      state: "done",
    });
    // The text was live until the stop's close committed it, with the Turn's finish after it.
    expect(harness.mutations(session.id).map((mutation) => `${mutation.variant}:${mutation.type}`)).toEqual([
      "turn:start",
      "message:user",
      "message:assistant",
      "turn:finish",
    ]);
    expect(harness.liveMutations(session.id).map((mutation) => mutation.variant)).toEqual([
      "message",
      "part",
      "delta",
      "delta",
    ]);
  });
});
