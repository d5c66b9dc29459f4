import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { z } from "zod";
import type { JsonValue } from "../schema/json.js";
import type { AnyAgentTool } from "../tools/define-agent-tool.js";
import type { RuntimeIds } from "./ids.js";
import { toolPartId } from "./ids.js";
import {
  addStreamingPart,
  appendStreamedText,
  finishStreamingPart,
} from "./transitions/assistant-transitions.js";
import {
  appendToolInput,
  settleToolCall,
  startToolInput,
  type ToolCallOutcome,
} from "./transitions/tool-part-transitions.js";
import { type AssistantTransitionFn, findToolIndex } from "./transitions/transition.js";

/** What the stream consumer needs from its Turn: the segment's message and fenced writes to it. */
export interface StepWriteAccess {
  /** The open assistant message of this segment, created on the Step's first content. */
  ensureMessage(): Promise<string>;
  update(message_id: string, transition: AssistantTransitionFn): Promise<void>;
}

/** Thrown for an `error` part of the model stream. */
export class ModelStreamError extends Error {
  override readonly name = "ModelStreamError";
}

interface PendingFragment {
  part_id: string;
  kind: "text" | "reasoning" | "tool";
  tool_call_id?: string;
  fragment: string;
}

/**
 * Turns one Step's `LanguageModelV3` stream into assistant revisions. Text, reasoning and tool-input
 * deltas are coalesced (every `flush_ms` and at every part boundary) into one revision each; every
 * other stream part is a boundary and is written in stream order on the session's write chain.
 */
export class StepStreamConsumer {
  readonly #access: StepWriteAccess;
  readonly #tools: Record<string, AnyAgentTool>;
  readonly #ids: RuntimeIds;
  readonly #flushMs: number;
  /** Provider part id → our part id, for text and reasoning. */
  readonly #streamingParts = new Map<string, string>();
  readonly #inputText = new Map<string, string>();
  #pending: PendingFragment[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerFlush: Promise<void> = Promise.resolve();
  /** Tool calls of this Step in arrival order; `ready` ones run after the stream ends. */
  readonly toolCalls: { tool_call_id: string; ready: boolean }[] = [];

  constructor(
    access: StepWriteAccess,
    tools: Record<string, AnyAgentTool>,
    ids: RuntimeIds,
    flushMs: number,
  ) {
    this.#access = access;
    this.#tools = tools;
    this.#ids = ids;
    this.#flushMs = flushMs;
  }

  async consume(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await this.#handle(value);
      }
      await this.flush();
      const message_id = await this.#openPartsMessage();
      if (message_id) {
        for (const part_id of this.#streamingParts.values()) {
          await this.#access.update(message_id, (current) => finishStreamingPart(current, part_id));
        }
      }
    } finally {
      this.#cancelTimer();
      reader.releaseLock();
    }
  }

  /** Writes every buffered fragment, one revision each, in arrival order. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    await this.#timerFlush;
    await this.#drain();
  }

  async #drain(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return;
    const message_id = await this.#access.ensureMessage();
    for (const item of pending) {
      if (item.kind === "tool") {
        const tool_call_id = item.tool_call_id ?? "";
        await this.#access.update(message_id, (current) =>
          appendToolInput(current, tool_call_id, item.fragment),
        );
      } else {
        await this.#access.update(message_id, (current) =>
          appendStreamedText(current, item.part_id, item.fragment),
        );
      }
    }
  }

  async #openPartsMessage(): Promise<string | undefined> {
    return this.#streamingParts.size > 0 ? this.#access.ensureMessage() : undefined;
  }

  async #handle(part: LanguageModelV3StreamPart): Promise<void> {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning";
        const part_id = this.#streamingParts.get(part.id) ?? (await this.#startStreamingPart(part.id, kind));
        this.#buffer({ part_id, kind, fragment: part.delta });
        return;
      }
      case "tool-input-delta": {
        this.#inputText.set(part.id, (this.#inputText.get(part.id) ?? "") + part.delta);
        this.#buffer({
          part_id: toolPartId(part.id),
          kind: "tool",
          tool_call_id: part.id,
          fragment: part.delta,
        });
        return;
      }
      case "text-start":
      case "reasoning-start":
        await this.flush();
        await this.#startStreamingPart(part.id, part.type === "text-start" ? "text" : "reasoning");
        return;
      case "text-end":
      case "reasoning-end": {
        await this.flush();
        const part_id = this.#streamingParts.get(part.id);
        if (!part_id) return;
        this.#streamingParts.delete(part.id);
        const message_id = await this.#access.ensureMessage();
        await this.#access.update(message_id, (current) => finishStreamingPart(current, part_id));
        return;
      }
      case "tool-input-start": {
        await this.flush();
        const message_id = await this.#access.ensureMessage();
        this.#inputText.set(part.id, "");
        await this.#access.update(message_id, (current) =>
          findToolIndex(current, part.id) >= 0
            ? null
            : startToolInput(current, { tool_call_id: part.id, tool_name: part.toolName }),
        );
        return;
      }
      case "tool-input-end":
        await this.flush();
        return;
      case "tool-call": {
        await this.flush();
        if (part.providerExecuted) return;
        const message_id = await this.#access.ensureMessage();
        const outcome = this.#validateCall(part.toolName, part.input);
        const call = { tool_call_id: part.toolCallId, tool_name: part.toolName, input_text: part.input };
        await this.#access.update(message_id, (current) => settleToolCall(current, call, outcome));
        this.toolCalls.push({ tool_call_id: part.toolCallId, ready: !("error" in outcome) });
        return;
      }
      case "error":
        await this.flush();
        throw new ModelStreamError(errorText(part.error));
      default:
        return;
    }
  }

  async #startStreamingPart(provider_id: string, kind: "text" | "reasoning"): Promise<string> {
    const part_id = this.#ids.part(kind);
    this.#streamingParts.set(provider_id, part_id);
    const message_id = await this.#access.ensureMessage();
    await this.#access.update(message_id, (current) => addStreamingPart(current, part_id, kind));
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

  #buffer(fragment: PendingFragment): void {
    const last = this.#pending[this.#pending.length - 1];
    if (last && last.part_id === fragment.part_id) last.fragment += fragment.fragment;
    else this.#pending.push(fragment);
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#timerFlush = this.#timerFlush.then(() => this.#drain());
        // Awaited by the next `flush`; marked handled so a failure surfaces there, not as unhandled.
        this.#timerFlush.catch(() => undefined);
      }, this.#flushMs);
    }
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
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
