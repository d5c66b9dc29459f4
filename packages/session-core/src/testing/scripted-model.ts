import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { JsonValue } from "../schema/json.js";
import { type Gate, GateSet } from "./gates.js";

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** The provider's tool call id (kept by Parley as `tool_call_id`). */
  id: string;
  name: string;
  /** JSON-encoded into the call's input text. */
  input?: JsonValue;
  /** The raw input text instead of `JSON.stringify(input)` (e.g. invalid JSON). */
  input_text?: string;
  /** How many `tool-input-delta` parts carry the input text (default: the model's option, else 1). */
  input_chunks?: number;
  /** Ends after the input deltas, without `tool-input-end` and `tool-call`: the input never completes. */
  partial?: boolean;
}

/** One element of a Step's script; the model streams them in order. */
export type ScriptItem =
  /** `text-start`, the deltas (`chunks`, which must join to `text`, or one delta), `text-end`. */
  | { text: string; chunks?: string[] }
  | { reasoning: string; chunks?: string[] }
  | { tool_call: ScriptedToolCall }
  /**
   * A provider failure. `part` (default): an `error` stream part; later items still stream and the
   * finish reason becomes `error`, as providers report a failed chunk. `stream`: the stream itself
   * errors (the reader rejects), no finish. `reject`: `doStream` rejects before any output; it must
   * be the Step's first item.
   */
  | { error: string | Error; as?: "part" | "stream" | "reject" }
  /**
   * Waits here until `model.release(name)` (or until the call is aborted, which errors the stream
   * with the abort reason). `await model.reached(name)` resolves once the stream got here.
   */
  | { block: string }
  /** A part the provider sends whole: a generated `file` or a cited `source`, streamed as given. */
  | { output: Extract<LanguageModelV3StreamPart, { type: "file" | "source" }> }
  /** Ends the Step with this finish; otherwise `tool-calls`, `error` or `stop` is derived. */
  | { finish: { reason: LanguageModelV3FinishReason["unified"]; usage?: LanguageModelV3Usage } };

/** What the model received in one call, for assertions on what the next Step saw. */
export interface ScriptedCall {
  /** 0-based call (Step) index across the model's life. */
  index: number;
  /** The model that received the call (several models can share one `call_log`). */
  model_id: string;
  prompt: LanguageModelV3Prompt;
  tool_names: string[];
  options: Omit<LanguageModelV3CallOptions, "abortSignal">;
  abort_signal: AbortSignal | undefined;
  /** Every tool result in the prompt, in order. */
  tool_results: { tool_call_id: string; tool_name: string; output: LanguageModelV3ToolResultOutput }[];
  /** Text of the last user message in the prompt. */
  last_user_text: string | undefined;
}

/** A Step: a fixed script or one computed from what the model received. */
export type ScriptedStep = ScriptItem[] | ((call: ScriptedCall) => ScriptItem[]);

export interface ScriptedModelOptions {
  model_id?: string;
  provider?: string;
  /** Splits each text/reasoning item without `chunks` into deltas of this many characters. */
  text_chunk_size?: number;
  /** Default number of `tool-input-delta` parts per tool call. */
  tool_input_chunks?: number;
  usage?: LanguageModelV3Usage;
  /** Also appends every call here, e.g. one log shared by two models to assert which model ran when. */
  call_log?: ScriptedCall[];
}

export interface ScriptedModel extends LanguageModelV3 {
  /** Every `doStream`/`doGenerate` call received, in order. */
  readonly calls: ScriptedCall[];
  /** Resolves when a stream reaches `{ block: name }`. */
  reached(name: string): Promise<void>;
  /** Lets a stream pass `{ block: name }` (now or when it gets there). */
  release(name: string): void;
}

const UNKNOWN_USAGE: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * A deterministic, offline `LanguageModelV3` for tests: call N streams `steps[N]` (or what the
 * `steps` function returns for it). A call beyond the script rejects, so a runtime that calls the
 * model once too often fails the test.
 *
 * ```ts
 * const model = createScriptedModel([
 *   [{ text: "before" }, { tool_call: { id: "call_1", name: "delete_file", input: { path: "a.txt" } } }],
 *   [{ text: "done" }],
 * ]);
 * ```
 */
export function createScriptedModel(
  steps: ScriptedStep[] | ((call: ScriptedCall) => ScriptItem[]),
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const calls: ScriptedCall[] = [];
  const gates = new GateSet();
  const model_id = options.model_id ?? "scripted";

  const scriptFor = (call: ScriptedCall): ScriptItem[] => {
    if (typeof steps === "function") return steps(call);
    const step = steps[call.index];
    if (!step) {
      throw new Error(
        `Scripted model ${model_id} has no step ${call.index + 1} (it was given ${steps.length})`,
      );
    }
    return typeof step === "function" ? step(call) : step;
  };

  const start = (call_options: LanguageModelV3CallOptions) => {
    const call = recordCall(calls.length, model_id, call_options);
    calls.push(call);
    options.call_log?.push(call);
    call_options.abortSignal?.throwIfAborted();
    const script = scriptFor(call);
    const first = script[0];
    if (first && "error" in first && first.as === "reject") throw toError(first.error);
    return streamParts(script, { ...options, gates, abort_signal: call_options.abortSignal });
  };

  return {
    specificationVersion: "v3",
    provider: options.provider ?? "scripted",
    modelId: model_id,
    supportedUrls: {},
    calls,
    reached: (name) => gates.get(name).reached,
    release: (name) => gates.get(name).release(),
    async doStream(call_options) {
      const parts = start(call_options);
      return { stream: toReadableStream(parts) };
    },
    async doGenerate(call_options) {
      return collectGenerateResult(start(call_options));
    },
  };
}

function recordCall(index: number, model_id: string, options: LanguageModelV3CallOptions): ScriptedCall {
  const { abortSignal, ...rest } = options;
  const recorded = structuredClone(rest);
  const tool_results = recorded.prompt.flatMap((message) =>
    message.role === "tool"
      ? message.content.flatMap((part) =>
          part.type === "tool-result"
            ? [{ tool_call_id: part.toolCallId, tool_name: part.toolName, output: part.output }]
            : [],
        )
      : [],
  );
  const last_user = recorded.prompt.findLast((message) => message.role === "user");
  const last_user_text =
    last_user?.role === "user"
      ? last_user.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
      : undefined;
  return {
    index,
    model_id,
    prompt: recorded.prompt,
    tool_names: (recorded.tools ?? []).map((tool) => tool.name),
    options: recorded,
    abort_signal: abortSignal,
    tool_results,
    last_user_text,
  };
}

interface StreamContext extends ScriptedModelOptions {
  gates: GateSet;
  abort_signal: AbortSignal | undefined;
}

async function* streamParts(
  script: ScriptItem[],
  context: StreamContext,
): AsyncGenerator<LanguageModelV3StreamPart> {
  const { abort_signal } = context;
  const counters = { text: 0, reasoning: 0 };
  let saw_tool_call = false;
  let saw_error = false;
  yield { type: "stream-start", warnings: [] };
  for (const [position, item] of script.entries()) {
    abort_signal?.throwIfAborted();
    if ("text" in item || "reasoning" in item) {
      const kind = "text" in item ? "text" : "reasoning";
      const content = "text" in item ? item.text : item.reasoning;
      counters[kind] += 1;
      const id = `${kind}-${counters[kind]}`;
      yield { type: `${kind}-start`, id };
      for (const delta of textChunks(content, item.chunks, context.text_chunk_size)) {
        abort_signal?.throwIfAborted();
        yield { type: `${kind}-delta`, id, delta };
      }
      yield { type: `${kind}-end`, id };
    } else if ("tool_call" in item) {
      const call = item.tool_call;
      const input_text = call.input_text ?? JSON.stringify(call.input ?? {});
      yield { type: "tool-input-start", id: call.id, toolName: call.name };
      for (const delta of splitEvenly(input_text, call.input_chunks ?? context.tool_input_chunks ?? 1)) {
        abort_signal?.throwIfAborted();
        yield { type: "tool-input-delta", id: call.id, delta };
      }
      if (call.partial) continue;
      yield { type: "tool-input-end", id: call.id };
      yield { type: "tool-call", toolCallId: call.id, toolName: call.name, input: input_text };
      saw_tool_call = true;
    } else if ("error" in item) {
      if (item.as === "reject")
        throw new Error("A { error, as: 'reject' } item must be the first of its step");
      if (item.as === "stream") throw toError(item.error);
      saw_error = true;
      yield { type: "error", error: toError(item.error) };
    } else if ("block" in item) {
      await waitForGate(context.gates.get(item.block), abort_signal);
    } else if ("output" in item) {
      yield item.output;
    } else {
      if (position !== script.length - 1) throw new Error("A { finish } item must be the last of its step");
      yield finishPart(item.finish.reason, item.finish.usage ?? context.usage);
      return;
    }
  }
  yield finishPart(saw_error ? "error" : saw_tool_call ? "tool-calls" : "stop", context.usage);
}

function finishPart(
  reason: LanguageModelV3FinishReason["unified"],
  usage: LanguageModelV3Usage | undefined,
): LanguageModelV3StreamPart {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: reason },
    usage: structuredClone(usage ?? UNKNOWN_USAGE),
  };
}

async function waitForGate(gate: Gate, abort_signal: AbortSignal | undefined): Promise<void> {
  gate.arrive();
  if (gate.isReleased) return;
  if (!abort_signal) return gate.released;
  abort_signal.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abort_signal.reason);
    abort_signal.addEventListener("abort", onAbort, { once: true });
    gate.released.then(() => {
      abort_signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

function textChunks(text: string, chunks: string[] | undefined, chunk_size: number | undefined): string[] {
  if (chunks) {
    if (chunks.join("") !== text)
      throw new Error(`Scripted chunks ${JSON.stringify(chunks)} do not join to "${text}"`);
    return chunks;
  }
  if (text === "") return [];
  if (!chunk_size) return [text];
  const pieces: string[] = [];
  for (let offset = 0; offset < text.length; offset += chunk_size)
    pieces.push(text.slice(offset, offset + chunk_size));
  return pieces;
}

/** `count` non-empty pieces (fewer when the text is shorter) that join to `text`. */
function splitEvenly(text: string, count: number): string[] {
  const pieces = Math.max(1, Math.min(count, text.length));
  const size = Math.ceil(text.length / pieces);
  return textChunks(text, undefined, size);
}

function toError(error: string | Error): Error {
  return typeof error === "string" ? new Error(error) : error;
}

function toReadableStream(
  parts: AsyncGenerator<LanguageModelV3StreamPart>,
): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
}

async function collectGenerateResult(
  parts: AsyncGenerator<LanguageModelV3StreamPart>,
): Promise<LanguageModelV3GenerateResult> {
  const content: LanguageModelV3Content[] = [];
  const texts = new Map<string, { type: "text" | "reasoning"; text: string }>();
  let finish: Extract<LanguageModelV3StreamPart, { type: "finish" }> | undefined;
  for await (const part of parts) {
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const entry: { type: "text" | "reasoning"; text: string } = {
          type: part.type === "text-start" ? "text" : "reasoning",
          text: "",
        };
        texts.set(part.id, entry);
        content.push(entry);
        break;
      }
      case "text-delta":
      case "reasoning-delta": {
        const entry = texts.get(part.id);
        if (entry) entry.text += part.delta;
        break;
      }
      case "tool-call":
      case "file":
      case "source":
        content.push(part);
        break;
      case "error":
        throw part.error;
      case "finish":
        finish = part;
        break;
      default:
        break;
    }
  }
  if (!finish) throw new Error("Scripted stream ended without a finish part");
  return { content, finishReason: finish.finishReason, usage: finish.usage, warnings: [] };
}
