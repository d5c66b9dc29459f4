import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModelFromSetting } from "../models/create-model-from-setting.js";
import {
  type ChatCompletionsStub,
  type StubReply,
  type StubRequest,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import { DEFAULT_SYSTEM_PROMPT } from "./default-system-prompt.js";
import {
  type AgentTestRuntime,
  approvalResponse,
  nextPendingInteraction,
  startAgentTestRuntime,
  toolPartsOf,
} from "./testing/agent-test-runtime.js";

let stub: ChatCompletionsStub;
let harness: AgentTestRuntime;

async function start(replies: StubReply[]): Promise<void> {
  stub = await startChatCompletionsStub(replies);
  const model = createModelFromSetting("openai-compatible:stub-model", {
    OPENAI_BASE_URL: stub.base_url,
    OPENAI_API_KEY: "sk-stub",
  });
  harness = await startAgentTestRuntime(model);
  await writeFile(path.join(harness.root, "notes.txt"), "remember the milk");
}

beforeEach(() => {
  stub = undefined as unknown as ChatCompletionsStub;
  harness = undefined as unknown as AgentTestRuntime;
});

afterEach(async () => {
  await harness?.dispose();
  await stub?.close();
});

/** The tool messages (results) the stub received in one request. */
function toolMessages(request: StubRequest | undefined) {
  return (request?.body.messages ?? []).filter((message) => message.role === "tool");
}

const DELETE_CALL: StubReply = {
  text_chunks: ["I'll delete ", "notes.txt ", "for you."],
  tool_calls: [
    { id: "call_stub_delete", name: "delete_file", argument_chunks: ['{"pa', 'th": "not', 'es.txt"}'] },
  ],
};

describe("openai-compatible provider over HTTP through the runtime, with the default agent", () => {
  it("approval flow: the streamed tool call asks approval, runs, and the stub sees the result in the same Turn", async () => {
    await start([DELETE_CALL, { text_chunks: ["Deleted ", "notes.txt."] }]);
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "please delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    expect(request).toMatchObject({
      turn_id: turn.id,
      type: "approval",
      source: { type: "tool", tool_call_id: "call_stub_delete", tool_name: "delete_file" },
      payload: { operation: "tool", validated_input: { path: "notes.txt" } },
    });
    expect(stub.requests).toHaveLength(1);

    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({ success: true, text: "Deleted notes.txt." });
    expect(await readFile(path.join(harness.root, "notes.txt")).catch(() => null)).toBeNull();

    expect(stub.requests).toHaveLength(2);
    const [first, second] = stub.requests;
    expect(first?.body.messages).toEqual([
      { role: "system", content: DEFAULT_SYSTEM_PROMPT },
      { role: "user", content: "please delete notes.txt" },
    ]);
    expect(first?.body.tools?.map((tool) => tool.function.name).sort()).toEqual([
      "ask_question",
      "delete_file",
      "list_files",
      "read_file",
      "request_form",
      "shell",
      "write_file",
    ]);
    expect(second?.body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "I'll delete notes.txt for you.",
        tool_calls: [
          {
            id: "call_stub_delete",
            type: "function",
            function: { name: "delete_file", arguments: '{"path":"notes.txt"}' },
          },
        ],
      },
      // The result as the store gives it back: object keys in Postgres jsonb's order.
      { role: "tool", tool_call_id: "call_stub_delete", content: '{"deleted":"notes.txt","success":true}' },
    ]);
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({
      tool_call_id: "call_stub_delete",
      state: "completed",
      input: { path: "notes.txt" },
      output: { success: true, deleted: "notes.txt" },
    });
  });

  it("denied approval: nothing is deleted and the stub receives the tool error", async () => {
    await start([DELETE_CALL, { text_chunks: ["Understood, ", "I left it."] }]);
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("denied") });
    expect(await turn.finished).toMatchObject({ success: true, text: "Understood, I left it." });
    expect(await readFile(path.join(harness.root, "notes.txt"), "utf8")).toBe("remember the milk");
    expect(toolMessages(stub.requests[1])).toEqual([
      { role: "tool", tool_call_id: "call_stub_delete", content: "Interaction denied" },
    ]);
  });

  it("question flow: ask_question with streamed arguments, answered, and the answers reach the stub", async () => {
    const askInput = JSON.stringify({
      title: "Deployment",
      questions: [
        {
          question: "Which region?",
          type: "single_select",
          options: [
            { value: "cn", label: "China" },
            { value: "us", label: "United States" },
          ],
        },
      ],
    });
    await start([
      {
        text_chunks: ["One question first."],
        tool_calls: [
          {
            id: "call_stub_ask",
            name: "ask_question",
            argument_chunks: [askInput.slice(0, 20), askInput.slice(20, 60), askInput.slice(60)],
          },
        ],
      },
      { text_chunks: ["Deploying ", "to China."] },
    ]);
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "deploy the app" });
    const request = await nextPendingInteraction(session, turn);
    expect(request).toMatchObject({
      type: "question",
      source: { type: "tool", tool_call_id: "call_stub_ask", tool_name: "ask_question" },
    });
    const [question] = (request.payload as { questions: Array<{ question_id: string }> }).questions;
    if (question === undefined) throw new Error("expected one question");
    await session.respond({
      interaction_id: request.interaction_id,
      response: {
        type: "question",
        outcome: "resolved",
        payload: { answers: [{ question_id: question.question_id, value: "cn" }] },
      },
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "Deploying to China." });
    expect(stub.requests).toHaveLength(2);
    expect(toolMessages(stub.requests[1])).toEqual([
      {
        role: "tool",
        tool_call_id: "call_stub_ask",
        // As stored: object keys in Postgres jsonb's order (shorter first).
        content: JSON.stringify({
          status: "resolved",
          answers: [{ value: "cn", question_id: question.question_id }],
        }),
      },
    ]);
  });
});
