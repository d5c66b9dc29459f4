import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { parseDemoIntent } from "./demo-intent.js";
import { DEMO_HELP_TEXT, type ObservedToolResult, summarizeToolResult } from "./demo-replies.js";

/** Characters per text delta and per tool-input delta: small, so clients see real streaming. */
const TEXT_CHUNK_CHARS = 12;
const INPUT_CHUNK_CHARS = 16;

/**
 * The built-in `demo` model: a deterministic, offline `LanguageModelV3`. Each Step it looks at its
 * prompt only: if tool results follow the last user message it summarises the latest one; otherwise
 * it maps the user's request to one tool call (see `parseDemoIntent`) or answers with what it can do.
 * It never runs tools itself: calls go through the runtime's tool path (validation, approvals,
 * questions) exactly like a real provider's.
 *
 * A `variant` (the setting `demo:<variant>`) behaves the same but starts every text it writes with
 * `[<variant>] `, so that a session switching between demo models shows which one answered.
 */
export function createDemoModel(options: { variant?: string } = {}): LanguageModelV3 {
  const { variant } = options;
  const modelId = variant === undefined ? "demo" : `demo:${variant}`;
  return {
    specificationVersion: "v3",
    provider: "parley",
    modelId,
    supportedUrls: {},
    async doGenerate(callOptions: LanguageModelV3CallOptions) {
      return collectStep(planDemoStep(callOptions, variant));
    },
    async doStream(callOptions: LanguageModelV3CallOptions) {
      const parts = planDemoStep(callOptions, variant);
      return { stream: streamParts(parts, callOptions.abortSignal) };
    },
  };
}

/** Every stream part of one Step, computed up front from the prompt. */
export function planDemoStep(
  options: Pick<LanguageModelV3CallOptions, "prompt" | "tools">,
  variant?: string,
): LanguageModelV3StreamPart[] {
  const { prompt } = options;
  const availableTools = new Set((options.tools ?? []).map((tool) => tool.name));
  const modelId = variant === undefined ? "demo" : `demo:${variant}`;
  const signed = (text: string) => (variant === undefined || text === "" ? text : `[${variant}] ${text}`);
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: `demo-response-${countToolCalls(prompt) + 1}`, modelId },
  ];
  const observed = latestToolResultOfThisTurn(prompt);
  if (observed !== undefined) {
    const reply = signed(summarizeToolResult(observed));
    parts.push(...textParts("text-1", reply), finish("stop", prompt, reply.length));
    return parts;
  }
  const intent = parseDemoIntent(lastUserText(prompt));
  if (intent.kind === "help") {
    const help = signed(DEMO_HELP_TEXT);
    parts.push(...textParts("text-1", help), finish("stop", prompt, help.length));
    return parts;
  }
  if (!availableTools.has(intent.tool_name)) {
    const reply = signed(
      `I would use the ${intent.tool_name} tool for that, but this agent does not have it.`,
    );
    parts.push(...textParts("text-1", reply), finish("stop", prompt, reply.length));
    return parts;
  }
  const toolCallId = `call_demo_${countToolCalls(prompt) + 1}`;
  const input = JSON.stringify(intent.input);
  const preface = signed(intent.preface);
  parts.push(...textParts("text-1", preface));
  parts.push({ type: "tool-input-start", id: toolCallId, toolName: intent.tool_name });
  for (const delta of chunk(input, INPUT_CHUNK_CHARS))
    parts.push({ type: "tool-input-delta", id: toolCallId, delta });
  parts.push({ type: "tool-input-end", id: toolCallId });
  parts.push({ type: "tool-call", toolCallId, toolName: intent.tool_name, input });
  parts.push(finish("tool-calls", prompt, preface.length + input.length));
  return parts;
}

/** The same Step as one result, for `doGenerate` callers (Parley's runtime itself only streams). */
function collectStep(parts: LanguageModelV3StreamPart[]): LanguageModelV3GenerateResult {
  const content: LanguageModelV3Content[] = [];
  let text = "";
  let result: Pick<LanguageModelV3GenerateResult, "finishReason" | "usage"> | undefined;
  for (const part of parts) {
    if (part.type === "text-delta") text += part.delta;
    else if (part.type === "text-end") {
      content.push({ type: "text", text });
      text = "";
    } else if (part.type === "tool-call") content.push(part);
    else if (part.type === "finish") result = { finishReason: part.finishReason, usage: part.usage };
  }
  if (result === undefined) throw new Error("A demo Step always ends with a finish part");
  return { content, ...result, warnings: [] };
}

/** Pull-driven (nothing is queued ahead), so an abort between reads errors the very next read. */
function streamParts(parts: LanguageModelV3StreamPart[], abortSignal: AbortSignal | undefined) {
  let index = 0;
  return new ReadableStream<LanguageModelV3StreamPart>(
    {
      pull(controller) {
        if (abortSignal?.aborted) {
          controller.error(
            abortSignal.reason ?? new DOMException("The demo model was aborted", "AbortError"),
          );
          return;
        }
        const part = parts[index];
        index += 1;
        if (part === undefined) controller.close();
        else controller.enqueue(part);
      },
    },
    { highWaterMark: 0 },
  );
}

function textParts(id: string, text: string): LanguageModelV3StreamPart[] {
  return [
    { type: "text-start", id },
    ...chunk(text, TEXT_CHUNK_CHARS).map(
      (delta): LanguageModelV3StreamPart => ({ type: "text-delta", id, delta }),
    ),
    { type: "text-end", id },
  ];
}

function finish(
  reason: "stop" | "tool-calls",
  prompt: LanguageModelV3Prompt,
  outputChars: number,
): LanguageModelV3StreamPart {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: reason === "stop" ? "stop" : "tool_calls" },
    usage: estimateUsage(prompt, outputChars),
  };
}

/** A rough, deterministic count (about four characters per token), so usage is never empty. */
function estimateUsage(prompt: LanguageModelV3Prompt, outputChars: number): LanguageModelV3Usage {
  const inputTokens = Math.ceil(JSON.stringify(prompt).length / 4);
  const outputTokens = Math.ceil(outputChars / 4);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  };
}

/** Splits on character boundaries (never inside a surrogate pair). */
function chunk(text: string, size: number): string[] {
  const characters = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    chunks.push(characters.slice(start, start + size).join(""));
  }
  return chunks;
}

function lastUserIndex(prompt: LanguageModelV3Prompt): number {
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    if (prompt[index]?.role === "user") return index;
  }
  return -1;
}

function lastUserText(prompt: LanguageModelV3Prompt): string {
  const message = prompt[lastUserIndex(prompt)];
  if (message?.role !== "user") return "";
  return message.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("\n")
    .trim();
}

/** Tool calls anywhere in the prompt; the next call's id counts on from them, so ids stay unique. */
function countToolCalls(prompt: LanguageModelV3Prompt): number {
  let count = 0;
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call") count += 1;
  }
  return count;
}

/** The newest tool result after the last user message, with the input of its call. */
function latestToolResultOfThisTurn(prompt: LanguageModelV3Prompt): ObservedToolResult | undefined {
  const inputs = new Map<string, unknown>();
  let latest: ObservedToolResult | undefined;
  for (const message of prompt.slice(lastUserIndex(prompt) + 1)) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-call") inputs.set(part.toolCallId, part.input);
        if (part.type === "tool-result") {
          latest = { tool_name: part.toolName, input: inputs.get(part.toolCallId), output: part.output };
        }
      }
    }
    if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type !== "tool-result") continue;
        latest = { tool_name: part.toolName, input: inputs.get(part.toolCallId), output: part.output };
      }
    }
  }
  return latest;
}
