import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { createModelFromSetting } from "./create-model-from-setting.js";
import { type ChatCompletionsStub, startChatCompletionsStub } from "./testing/chat-completions-stub.js";

let stub: ChatCompletionsStub | undefined;

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe("openai-compatible:<id> over HTTP against a local chat-completions stub", () => {
  it("streams text deltas and a tool call whose arguments arrive in pieces", async () => {
    stub = await startChatCompletionsStub([
      {
        text_chunks: ["Deleting ", "notes.txt."],
        tool_calls: [
          { id: "call_stub_1", name: "delete_file", argument_chunks: ['{"pa', 'th":"no', 'tes.txt"}'] },
        ],
      },
    ]);
    const model = createModelFromSetting("openai-compatible:stub-model", {
      OPENAI_BASE_URL: stub.base_url,
      OPENAI_API_KEY: "sk-stub",
    });
    const { stream } = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "delete notes.txt" }] }],
      tools: [{ type: "function", name: "delete_file", inputSchema: { type: "object" } }],
    });
    const parts: LanguageModelV3StreamPart[] = [];
    for await (const part of stream) parts.push(part);

    expect(parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []))).toEqual([
      "Deleting ",
      "notes.txt.",
    ]);
    expect(parts.filter((part) => part.type.startsWith("tool-"))).toEqual([
      { type: "tool-input-start", id: "call_stub_1", toolName: "delete_file" },
      { type: "tool-input-delta", id: "call_stub_1", delta: '{"pa' },
      { type: "tool-input-delta", id: "call_stub_1", delta: 'th":"no' },
      { type: "tool-input-delta", id: "call_stub_1", delta: 'tes.txt"}' },
      { type: "tool-input-end", id: "call_stub_1" },
      {
        type: "tool-call",
        toolCallId: "call_stub_1",
        toolName: "delete_file",
        input: '{"path":"notes.txt"}',
      },
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      finishReason: { unified: "tool-calls" },
      usage: { inputTokens: { total: 42 }, outputTokens: { total: 7 } },
    });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]?.authorization).toBe("Bearer sk-stub");
    expect(stub.requests[0]?.body).toMatchObject({
      model: "stub-model",
      stream: true,
      messages: [{ role: "user", content: "delete notes.txt" }],
      tools: [{ type: "function", function: { name: "delete_file" } }],
    });
  });
});
