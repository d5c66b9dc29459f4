import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedCall } from "./scripted-model.js";

const userPrompt = (text: string): LanguageModelV3Prompt => [
  { role: "user", content: [{ type: "text", text }] },
];

function callOptions(overrides: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions {
  return { prompt: userPrompt("hello"), ...overrides };
}

async function readAll(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const finishOf = (parts: LanguageModelV3StreamPart[]) => parts.find((part) => part.type === "finish");

describe("createScriptedModel", () => {
  it("streams text, a tool call and more text as V3 parts, finishing with tool-calls", async () => {
    const model = createScriptedModel([
      [
        { text: "before" },
        { tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } },
        { text: "after", chunks: ["af", "ter"] },
      ],
    ]);
    const { stream } = await model.doStream(callOptions());
    const parts = await readAll(stream);
    expect(parts.map((part) => part.type)).toEqual([
      "stream-start",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(parts[4]).toEqual({ type: "tool-input-start", id: "call_1", toolName: "delete_file" });
    expect(parts[7]).toEqual({
      type: "tool-call",
      toolCallId: "call_1",
      toolName: "delete_file",
      input: '{"path":"a.txt"}',
    });
    expect(parts.filter((part) => part.type === "text-delta")).toEqual([
      { type: "text-delta", id: "text-1", delta: "before" },
      { type: "text-delta", id: "text-2", delta: "af" },
      { type: "text-delta", id: "text-2", delta: "ter" },
    ]);
    expect(finishOf(parts)).toEqual({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool-calls" },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
    });
  });

  it("streams tool input in the requested number of chunks and can leave it incomplete", async () => {
    const model = createScriptedModel([
      [
        {
          tool_call: { id: "c1", name: "write_file", input: { path: "a", content: "xyz" }, input_chunks: 3 },
        },
      ],
      [
        { tool_call: { id: "c2", name: "write_file", input_text: '{"path":', partial: true } },
        { error: "cut" },
      ],
    ]);
    const first = await readAll((await model.doStream(callOptions())).stream);
    const deltas = first.flatMap((part) => (part.type === "tool-input-delta" ? [part.delta] : []));
    expect(deltas).toHaveLength(3);
    expect(deltas.join("")).toBe('{"path":"a","content":"xyz"}');

    const second = await readAll((await model.doStream(callOptions())).stream);
    expect(second.map((part) => part.type)).toEqual([
      "stream-start",
      "tool-input-start",
      "tool-input-delta",
      "error",
      "finish",
    ]);
    expect(finishOf(second)).toMatchObject({ finishReason: { unified: "error" } });
  });

  it("streams reasoning and splits text by text_chunk_size", async () => {
    const model = createScriptedModel([[{ reasoning: "think" }, { text: "abcde" }]], { text_chunk_size: 2 });
    const parts = await readAll((await model.doStream(callOptions())).stream);
    expect(parts.filter((part) => part.type === "reasoning-delta" || part.type === "text-delta")).toEqual([
      { type: "reasoning-delta", id: "reasoning-1", delta: "th" },
      { type: "reasoning-delta", id: "reasoning-1", delta: "in" },
      { type: "reasoning-delta", id: "reasoning-1", delta: "k" },
      { type: "text-delta", id: "text-1", delta: "ab" },
      { type: "text-delta", id: "text-1", delta: "cd" },
      { type: "text-delta", id: "text-1", delta: "e" },
    ]);
    expect(finishOf(parts)).toMatchObject({ finishReason: { unified: "stop" } });
  });

  it("fails before output by rejecting doStream, and mid-stream by erroring the stream", async () => {
    const model = createScriptedModel([
      [{ error: "boom", as: "reject" }],
      [{ text: "partial" }, { error: "cut off", as: "stream" }],
    ]);
    await expect(model.doStream(callOptions())).rejects.toThrow("boom");
    const { stream } = await model.doStream(callOptions());
    const reader = stream.getReader();
    const seen: string[] = [];
    await expect(
      (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return;
          seen.push(next.value.type);
        }
      })(),
    ).rejects.toThrow("cut off");
    expect(seen).toEqual(["stream-start", "text-start", "text-delta", "text-end"]);
  });

  it("emits an error part before output when the error item comes first", async () => {
    const model = createScriptedModel([[{ error: "provider down" }]]);
    const parts = await readAll((await model.doStream(callOptions())).stream);
    expect(parts.map((part) => part.type)).toEqual(["stream-start", "error", "finish"]);
    const error = parts[1];
    expect(error?.type === "error" && (error.error as Error).message).toBe("provider down");
  });

  it("blocks at a gate until released", async () => {
    const model = createScriptedModel([[{ block: "first" }, { text: "released" }]]);
    const { stream } = await model.doStream(callOptions());
    const reading = readAll(stream);
    await model.reached("first");
    model.release("first");
    const parts = await reading;
    expect(parts.filter((part) => part.type === "text-delta")).toEqual([
      { type: "text-delta", id: "text-1", delta: "released" },
    ]);
  });

  it("passes a gate released before the stream gets there", async () => {
    const model = createScriptedModel([[{ block: "g" }, { text: "x" }]]);
    model.release("g");
    const parts = await readAll((await model.doStream(callOptions())).stream);
    expect(parts.map((part) => part.type)).toContain("text-delta");
  });

  it("errors a blocked stream with the abort reason when the call is aborted", async () => {
    const model = createScriptedModel([[{ text: "a" }, { block: "wait" }, { text: "never" }]]);
    const controller = new AbortController();
    const { stream } = await model.doStream(callOptions({ abortSignal: controller.signal }));
    const reading = readAll(stream);
    await model.reached("wait");
    const reason = new Error("Turn stopped");
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });

  it("rejects a call made with an already aborted signal", async () => {
    const model = createScriptedModel([[{ text: "a" }]]);
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    await expect(model.doStream(callOptions({ abortSignal: controller.signal }))).rejects.toThrow("gone");
    expect(model.calls).toHaveLength(1);
  });

  it("records prompts, tools and tool results of every call", async () => {
    const model = createScriptedModel([[{ text: "one" }], [{ text: "two" }]]);
    await readAll((await model.doStream(callOptions({ prompt: userPrompt("first") }))).stream);
    const prompt: LanguageModelV3Prompt = [
      ...userPrompt("first"),
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "delete_file", input: { path: "a" } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "delete_file",
            output: { type: "text", value: "ok" },
          },
        ],
      },
    ];
    await readAll(
      (
        await model.doStream({
          prompt,
          tools: [{ type: "function", name: "delete_file", inputSchema: { type: "object" } }],
        })
      ).stream,
    );
    expect(model.calls.map((call) => call.index)).toEqual([0, 1]);
    expect(model.calls[0]?.last_user_text).toBe("first");
    expect(model.calls[0]?.tool_names).toEqual([]);
    expect(model.calls[1]?.tool_names).toEqual(["delete_file"]);
    expect(model.calls[1]?.tool_results).toEqual([
      { tool_call_id: "call_1", tool_name: "delete_file", output: { type: "text", value: "ok" } },
    ]);
    prompt.length = 0;
    expect(model.calls[1]?.prompt).toHaveLength(3);
  });

  it("computes a step from the call it answers", async () => {
    const model = createScriptedModel((call) => [{ text: `echo: ${call.last_user_text}` }]);
    const result = await model.doGenerate(callOptions({ prompt: userPrompt("ping") }));
    expect(result.content).toEqual([{ type: "text", text: "echo: ping" }]);
    expect(result.finishReason).toEqual({ unified: "stop", raw: "stop" });
  });

  it("rejects a call beyond the script", async () => {
    const model = createScriptedModel([[{ text: "only" }]], { model_id: "m1" });
    await readAll((await model.doStream(callOptions())).stream);
    await expect(model.doStream(callOptions())).rejects.toThrow(
      "Scripted model m1 has no step 2 (it was given 1)",
    );
  });

  it("uses an explicit finish and usage", async () => {
    const usage = {
      inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 2, text: 2, reasoning: 0 },
    };
    const model = createScriptedModel([[{ text: "cut" }, { finish: { reason: "length", usage } }]]);
    const parts = await readAll((await model.doStream(callOptions())).stream);
    expect(finishOf(parts)).toEqual({
      type: "finish",
      finishReason: { unified: "length", raw: "length" },
      usage,
    });
  });

  it("answers doGenerate with text, reasoning and tool calls", async () => {
    const model = createScriptedModel([
      [{ reasoning: "hmm" }, { text: "a", chunks: ["a"] }, { tool_call: { id: "c", name: "t", input: [1] } }],
    ]);
    const result = await model.doGenerate(callOptions());
    expect(result.content).toEqual([
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "a" },
      { type: "tool-call", toolCallId: "c", toolName: "t", input: "[1]" },
    ]);
    expect(result.finishReason.unified).toBe("tool-calls");
  });

  it("appends the calls of several models to one shared call log", async () => {
    const call_log: ScriptedCall[] = [];
    const old_model = createScriptedModel([[{ text: "a" }]], { model_id: "old-model", call_log });
    const new_model = createScriptedModel([[{ text: "b" }]], { model_id: "new-model", call_log });
    await readAll((await old_model.doStream(callOptions())).stream);
    await readAll((await new_model.doStream(callOptions())).stream);
    expect(call_log.map((call) => call.model_id)).toEqual(["old-model", "new-model"]);
    expect(new_model.calls.map((call) => call.index)).toEqual([0]);
  });
});
