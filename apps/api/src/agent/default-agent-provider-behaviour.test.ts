import type { AssistantMessage } from "@parley/session-core";
import { MutationRecorder } from "@parley/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createModelFromSetting } from "../models/create-model-from-setting.js";
import {
  type ChatCompletionsStub,
  type StubReply,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import {
  type AgentTestRuntime,
  approvalResponse,
  assistantMessagesOf,
  nextPendingInteraction,
  startAgentTestRuntime,
} from "./testing/agent-test-runtime.js";

let stub: ChatCompletionsStub | undefined;
let harness: AgentTestRuntime | undefined;

async function start(replies: StubReply[]): Promise<AgentTestRuntime> {
  stub = await startChatCompletionsStub(replies);
  harness = await startAgentTestRuntime(
    createModelFromSetting("openai-compatible:stub-model", { OPENAI_BASE_URL: stub.base_url }),
  );
  return harness;
}

afterEach(async () => {
  await harness?.dispose();
  await stub?.close();
  harness = undefined;
  stub = undefined;
});

describe("what the real provider path brings to a Turn (openai-compatible over HTTP)", () => {
  it("streams reasoning and text, and the tool part goes input-streaming → ready → waiting-user → running → completed", async () => {
    const runtime = await start([
      {
        reasoning_chunks: ["The user wants ", "a file."],
        text_chunks: ["Writing ", "it now."],
        tool_calls: [
          {
            id: "call_stub_write",
            name: "write_file",
            argument_chunks: ['{"path":', '"todo.md",', '"content":"buy milk"}'],
          },
        ],
      },
      { text_chunks: ["Written."] },
    ]);
    const session = await runtime.createSession();
    const recorder = new MutationRecorder(session);
    const turn = await session.prompt({ query: "write todo.md: buy milk" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({ success: true, text: "Written." });
    recorder.stop();

    expect(recorder.toolStates("call_stub_write")).toEqual([
      "input-streaming",
      "ready",
      "waiting-user",
      "running",
      "completed",
    ]);
    const [first] = await assistantMessagesOf(session, turn.id);
    const reasoning = (first as AssistantMessage).parts.find((part) => part.type === "reasoning");
    expect(reasoning).toMatchObject({ text: "The user wants a file.", state: "done" });
  });

  it("a provider error that is not transient becomes the Turn's error message, with no retry", async () => {
    const runtime = await start([{ http_error: { status: 400, message: "the prompt is malformed" } }]);
    const session = await runtime.createSession();
    const turn = await session.prompt({ query: "hello" });
    const result = await turn.finished;
    expect(result.success).toBe(false);
    expect(result.error).toContain("the prompt is malformed");
    expect(stub?.requests).toHaveLength(1);
  });

  it("a transient provider error (503) is tried again after 2 s, and the Turn completes", async () => {
    const runtime = await start([
      { http_error: { status: 503, message: "the model is overloaded" } },
      { text_chunks: ["Back again."] },
    ]);
    const session = await runtime.createSession();
    const turn = await session.prompt({ query: "hello" });
    expect(await turn.finished).toMatchObject({ success: true, text: "Back again." });
    expect(stub?.requests).toHaveLength(2);
    expect(stub?.requests[1]?.body).toEqual(stub?.requests[0]?.body);
  });

  it("stop() aborts the provider's HTTP stream", async () => {
    const runtime = await start([{ text_chunks: ["Thinking about it"], stall: true }]);
    const session = await runtime.createSession();
    const recorder = new MutationRecorder(session);
    const turn = await session.prompt({ query: "take your time" });
    await untilStreamedText(recorder, "Thinking about it");
    recorder.stop();
    const disconnected = stub?.disconnected(0);
    await session.stop();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    await disconnected;
    expect(stub?.requests).toHaveLength(1);
  });
});

/**
 * Returns once the live deltas `recorder` received add up to `text` (the stub is stalled after
 * sending it; streamed text is live until a checkpoint, DESIGN §10.6).
 */
async function untilStreamedText(recorder: MutationRecorder, text: string): Promise<void> {
  const streamed = () =>
    recorder.mutations.flatMap((mutation) => (mutation.variant === "delta" ? [mutation.delta] : [])).join("");
  await recorder.waitFor(() => streamed() === text);
}
