import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { z } from "zod";
import type { JsonValue } from "../../schema/json.js";
import type { AnyAgentTool } from "../../tools/define-agent-tool.js";
import type { RuntimeIds } from "../ids.js";
import {
  addFinishedPart,
  addStreamingPart,
  appendStreamedText,
  finishModelStream,
  finishStreamingPart,
} from "../transitions/assistant-transitions.js";
import {
  appendToolInput,
  settleToolCall,
  startToolInput,
  type ToolCallOutcome,
} from "../transitions/tool-part-transitions.js";
import { type AssistantTransitionFn, findToolIndex } from "../transitions/transition.js";
import { filePartOf, sourcePartOf } from "./model-output-parts.js";

/** What the stream consumer needs from its Turn: the segment's message, live changes, checkpoints. */
export interface StepWriteAccess {
  /** The open assistant message of this segment, opened (live) on the Step's first content. */
  ensureMessage(): Promise<string>;
  /** A live change (DESIGN §10.6): published at once, committed by the next checkpoint. */
  live(message_id: string, transition: AssistantTransitionFn): Promise<void>;
  /** Commits the message's live state as one revision (a stream checkpoint). */
  checkpoint(message_id: string): Promise<void>;
  /** The time now (the stream checkpoint is measured with it). */
  now(): number;
}

/** Thrown for an `error` part of the model stream. */
export class ModelStreamError extends Error {
  override readonly name = "ModelStreamError";
}

/**
 * Turns one Step's `LanguageModelV3` stream into live changes of the segment's assistant message,
 * in stream order on the session's write chain (DESIGN §10.6, docs/behaviour.md#durability): the
 * message's opening, a later Step's `step-start`, text and reasoning parts (start, each delta, end),
 * a tool's `input-streaming` and its settled input (`ready`, or `failed` when refused), files and
 * sources are all published live and committed by the next checkpoint. A stream that runs
 * `checkpoint_ms` without one gets a checkpoint of what it streamed so far: checked after each part,
 * and by a timer when the stream stalls (measured with the runtime's clock either way).
 */
export class StepStreamConsumer {
  readonly #access: StepWriteAccess;
  readonly #tools: Record<string, AnyAgentTool>;
  readonly #ids: RuntimeIds;
  readonly #checkpointMs: number;
  /** Provider part id → our part id, for text and reasoning. */
  readonly #streamingParts = new Map<string, string>();
  /** Applied live with the Step's first change (a later Step's `step-start`). */
  #opening: AssistantTransitionFn | undefined;
  /** When the message's live state was last checkpointed (or the stream started). */
  #checkpointedAt = 0;
  /** The Step changed the message live since `#checkpointedAt`. */
  #dirty = false;
  /** Looks again once `checkpoint_ms` passed, for a stream that stalls between parts. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The stream was consumed (or failed): no timer is armed any more. */
  #ended = false;
  /** Tool calls of this Step in arrival order; `ready` ones run after the stream ends. */
  readonly toolCalls: { tool_call_id: string; ready: boolean }[] = [];

  constructor(
    access: StepWriteAccess,
    tools: Record<string, AnyAgentTool>,
    ids: RuntimeIds,
    checkpointMs: number,
  ) {
    this.#access = access;
    this.#tools = tools;
    this.#ids = ids;
    this.#checkpointMs = checkpointMs;
  }

  async consume(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<void> {
    const reader = stream.getReader();
    this.#checkpointedAt = this.#access.now();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await this.#handle(value);
        await this.#checkpointIfDue();
      }
      for (const part_id of this.#streamingParts.values()) {
        await this.#live((current) => finishStreamingPart(current, part_id));
      }
      // A Step that called tools ends its model stream here; its next checkpoint records it. A Step
      // without tool calls ends the segment or the Turn next, and that close records it.
      if (this.toolCalls.length > 0) await this.#live(finishModelStream);
      // A Step that wrote nothing still records its start (with the close that follows).
      if (this.#opening) await this.#live(() => null);
    } finally {
      this.#ended = true;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      reader.releaseLock();
    }
  }

  /**
   * `transition` is applied live with this Step's first change (e.g. a later Step's `step-start`),
   * or alone when the stream ends if the Step wrote nothing. The segment's message must exist.
   */
  opensWith(transition: AssistantTransitionFn): void {
    this.#opening = transition;
  }

  async #checkpointIfDue(): Promise<void> {
    const now = this.#access.now();
    if (!this.#dirty || now - this.#checkpointedAt < this.#checkpointMs) return;
    // Marked before the commit: a live change applied meanwhile counts for the next one.
    this.#checkpointedAt = now;
    this.#dirty = false;
    await this.#access.checkpoint(await this.#access.ensureMessage());
  }

  async #handle(part: LanguageModelV3StreamPart): Promise<void> {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning";
        const part_id = this.#streamingParts.get(part.id) ?? (await this.#startStreamingPart(part.id, kind));
        await this.#live((current) => appendStreamedText(current, part_id, part.delta));
        return;
      }
      case "tool-input-delta":
        await this.#live((current) => appendToolInput(current, part.id, part.delta));
        return;
      case "text-start":
      case "reasoning-start":
        await this.#startStreamingPart(part.id, part.type === "text-start" ? "text" : "reasoning");
        return;
      case "text-end":
      case "reasoning-end": {
        const part_id = this.#streamingParts.get(part.id);
        if (!part_id) return;
        this.#streamingParts.delete(part.id);
        await this.#live((current) => finishStreamingPart(current, part_id));
        return;
      }
      case "tool-input-start":
        await this.#live((current) =>
          findToolIndex(current, part.id) >= 0
            ? null
            : startToolInput(current, { tool_call_id: part.id, tool_name: part.toolName }),
        );
        return;
      case "tool-input-end":
        return;
      case "tool-call": {
        if (part.providerExecuted) return;
        const outcome = this.#validateCall(part.toolName, part.input);
        const call = { tool_call_id: part.toolCallId, tool_name: part.toolName, input_text: part.input };
        await this.#live((current) => settleToolCall(current, call, outcome));
        this.toolCalls.push({ tool_call_id: part.toolCallId, ready: !("error" in outcome) });
        return;
      }
      case "file": {
        const part_id = this.#ids.part("file");
        await this.#live((current) =>
          addFinishedPart(current, (sequence) => filePartOf(part, part_id, sequence)),
        );
        return;
      }
      case "source": {
        const part_id = this.#ids.part("source");
        await this.#live((current) =>
          addFinishedPart(current, (sequence) => sourcePartOf(part, part_id, sequence)),
        );
        return;
      }
      case "error":
        throw new ModelStreamError(errorText(part.error));
      default:
        return;
    }
  }

  async #startStreamingPart(provider_id: string, kind: "text" | "reasoning"): Promise<string> {
    const part_id = this.#ids.part(kind);
    this.#streamingParts.set(provider_id, part_id);
    await this.#live((current) => addStreamingPart(current, part_id, kind));
    return part_id;
  }

  /** Input validated against the tool's zod schema before anything can execute it. */
  #validateCall(tool_name: string, input_text: string): ToolCallOutcome {
    const tool = this.#tools[tool_name];
    if (!tool) return { error: `Unknown tool: ${tool_name}` };
    let input: JsonValue;
    try {
      input = input_text.trim() === "" ? {} : (JSON.parse(input_text) as JsonValue);
    } catch (error) {
      return { error: `Invalid JSON input for tool ${tool_name}: ${errorText(error)}` };
    }
    const parsed = tool.input_schema.safeParse(input);
    if (!parsed.success)
      return { error: `Invalid input for tool ${tool_name}: ${z.prettifyError(parsed.error)}`, input };
    return { input };
  }

  /** One live change of the Step's message, the Step's opening applied (and published) first. */
  async #live(transition: AssistantTransitionFn): Promise<void> {
    const message_id = await this.#access.ensureMessage();
    const opening = this.#opening;
    this.#opening = undefined;
    if (opening) await this.#access.live(message_id, opening);
    await this.#access.live(message_id, transition);
    this.#dirty = true;
    this.#armTimer();
  }

  /** While live changes wait for a checkpoint, looks every `checkpoint_ms` (a stalled stream). */
  #armTimer(): void {
    if (this.#timer !== undefined || this.#ended) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#checkpointIfDue().then(
        () => {
          if (this.#dirty) this.#armTimer();
        },
        // A failure (e.g. fenced) surfaces at the stream's next write, which fails the same way.
        () => undefined,
      );
    }, this.#checkpointMs);
  }
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
