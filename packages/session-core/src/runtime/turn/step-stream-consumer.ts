import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { z } from "zod";
import type { JsonValue } from "../../schema/json.js";
import type { AnyAgentTool } from "../../tools/define-agent-tool.js";
import type { RuntimeIds } from "../ids.js";
import { toolPartId } from "../ids.js";
import {
  addFinishedPart,
  addStreamingPart,
  appendStreamedText,
  finishModelStream,
  finishStreamingPart,
} from "../transitions/assistant-transitions.js";
import { batchTransitions } from "../transitions/batched-transition.js";
import {
  appendToolInput,
  settleToolCall,
  startToolInput,
  type ToolCallOutcome,
} from "../transitions/tool-part-transitions.js";
import { type AssistantTransitionFn, findToolIndex } from "../transitions/transition.js";
import { filePartOf, sourcePartOf } from "./model-output-parts.js";

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

/** Streamed text of one part, coalesced: one revision and one `delta` mutation each. */
interface PendingText {
  kind: "text" | "reasoning";
  part_id: string;
  fragment: string;
}

/** Streamed input of one tool call, coalesced: batched with the tool changes around it. */
interface PendingToolInput {
  kind: "tool-input";
  part_id: string;
  tool_call_id: string;
  fragment: string;
}

/** A tool change (its input starts, its call is settled) or the Step's end, batched. */
interface PendingChange {
  kind: "change";
  transition: AssistantTransitionFn;
  /** Set when this change creates the tool part of that call (`input-streaming`). */
  starts_tool?: string;
}

type PendingWrite = PendingText | PendingToolInput | PendingChange;

/**
 * Turns one Step's `LanguageModelV3` stream into assistant revisions, in stream order on the
 * session's write chain. Writes are buffered and committed every `flush_ms` (subscribers see only
 * persisted state, so that is how often they see progress) and at text and reasoning boundaries:
 * - text and reasoning: the part's start, each coalesced run of deltas (one `delta` mutation) and
 *   its end are one revision each, as clients expect them;
 * - tool calls: the part's start with the input streamed so far, and later its settled state
 *   (`ready`/`failed`) with the Step's end, are batched into as few revisions as possible
 *   (`batchTransitions`), while every state the part goes through is still published:
 *   `input-streaming` is committed before `ready`.
 */
export class StepStreamConsumer {
  readonly #access: StepWriteAccess;
  readonly #tools: Record<string, AnyAgentTool>;
  readonly #ids: RuntimeIds;
  readonly #flushMs: number;
  /** Provider part id → our part id, for text and reasoning. */
  readonly #streamingParts = new Map<string, string>();
  readonly #inputText = new Map<string, string>();
  #pending: PendingWrite[] = [];
  /** Committed with the Step's first write (`ridesAlongWithFirstWrite`). */
  #riders: AssistantTransitionFn[] = [];
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
      const message_id = await this.#openPartsMessage();
      if (message_id) {
        await this.flush();
        for (const part_id of this.#streamingParts.values()) {
          await this.#write(message_id, (current) => finishStreamingPart(current, part_id));
        }
      }
      // A Step that called tools ends its model stream with its last batch. A Step without tool calls
      // ends the segment or the Turn next, and that close records the end of the stream.
      if (this.toolCalls.length > 0) this.#queue({ kind: "change", transition: finishModelStream });
      await this.flush();
      // A Step that wrote nothing still records its start.
      if (this.#riders.length > 0) await this.#write(await this.#access.ensureMessage(), () => null);
    } finally {
      this.#cancelTimer();
      reader.releaseLock();
    }
  }

  /**
   * `transition` is committed with this Step's first write, in the same revision, without a mutation
   * of its own (e.g. a later Step's `step-start`, which clients do not show: it reaches them with
   * the message's next whole-message mutation). If the Step writes nothing, it is committed alone
   * when the stream ends. The segment's message must exist.
   */
  ridesAlongWithFirstWrite(transition: AssistantTransitionFn): void {
    this.#riders.push(transition);
  }

  /** Commits every buffered write, in arrival order (see the class comment for how they are grouped). */
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
    let batch: AssistantTransitionFn[] = [];
    const commitBatch = async () => {
      if (batch.length === 0) return;
      const transition = batchTransitions(batch);
      batch = [];
      await this.#write(message_id, transition);
    };
    for (const item of pending) {
      if (item.kind === "change") batch.push(item.transition);
      else if (item.kind === "tool-input") {
        batch.push((current) => appendToolInput(current, item.tool_call_id, item.fragment));
      } else {
        await commitBatch();
        await this.#write(message_id, (current) => appendStreamedText(current, item.part_id, item.fragment));
      }
    }
    await commitBatch();
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
        this.#queue({ part_id, kind, fragment: part.delta });
        return;
      }
      case "tool-input-delta": {
        this.#inputText.set(part.id, (this.#inputText.get(part.id) ?? "") + part.delta);
        this.#queue({
          part_id: toolPartId(part.id),
          kind: "tool-input",
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
        await this.#write(message_id, (current) => finishStreamingPart(current, part_id));
        return;
      }
      case "tool-input-start": {
        this.#inputText.set(part.id, "");
        this.#queue({
          kind: "change",
          starts_tool: part.id,
          transition: (current) =>
            findToolIndex(current, part.id) >= 0
              ? null
              : startToolInput(current, { tool_call_id: part.id, tool_name: part.toolName }),
        });
        return;
      }
      case "tool-input-end":
        return;
      case "tool-call": {
        if (part.providerExecuted) return;
        // Its `input-streaming` state is published before it settles: a start still buffered is
        // committed first, in a revision of its own.
        if (this.#pending.some((item) => item.kind === "change" && item.starts_tool === part.toolCallId)) {
          await this.flush();
        }
        const outcome = this.#validateCall(part.toolName, part.input);
        const call = { tool_call_id: part.toolCallId, tool_name: part.toolName, input_text: part.input };
        this.#queue({ kind: "change", transition: (current) => settleToolCall(current, call, outcome) });
        this.toolCalls.push({ tool_call_id: part.toolCallId, ready: !("error" in outcome) });
        return;
      }
      case "file": {
        const part_id = this.#ids.part("file");
        this.#queue({
          kind: "change",
          transition: (current) =>
            addFinishedPart(current, (sequence) => filePartOf(part, part_id, sequence)),
        });
        return;
      }
      case "source": {
        const part_id = this.#ids.part("source");
        this.#queue({
          kind: "change",
          transition: (current) =>
            addFinishedPart(current, (sequence) => sourcePartOf(part, part_id, sequence)),
        });
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
    await this.#write(message_id, (current) => addStreamingPart(current, part_id, kind));
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

  /** One revision of `transition`, carrying the transitions that ride along with the first write. */
  async #write(message_id: string, transition: AssistantTransitionFn): Promise<void> {
    const riders = this.#riders.splice(0);
    await this.#access.update(
      message_id,
      riders.length === 0 ? transition : batchTransitions([...riders, transition]),
    );
  }

  /** Buffers a write; fragments of the same part in a row are joined. Arms the flush timer. */
  #queue(write: PendingWrite): void {
    const last = this.#pending[this.#pending.length - 1];
    if (
      last &&
      last.kind !== "change" &&
      write.kind !== "change" &&
      last.kind === write.kind &&
      last.part_id === write.part_id
    ) {
      last.fragment += write.fragment;
    } else this.#pending.push(write);
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
