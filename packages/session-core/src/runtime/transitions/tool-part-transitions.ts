import type { JsonValue } from "../../schema/json.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { ToolPart } from "../../schema/parts.js";
import { toolPartId } from "../ids.js";
import {
  type AssistantTransition,
  appendPart,
  assertOpen,
  findToolIndex,
  isTerminalToolState,
  nextPartSequence,
  replacePart,
} from "./transition.js";

/**
 * The Tool part state machine (docs/behaviour.md#session). `part_id` is `tool:<tool_call_id>` for
 * the whole life of the call; each function is one revision of the owning message and one `part`
 * mutation of that part.
 */

export function startToolInput(
  message: AssistantMessage,
  input: { tool_call_id: string; tool_name: string },
): AssistantTransition {
  assertOpen(message);
  if (findToolIndex(message, input.tool_call_id) >= 0) {
    throw new Error(`Tool part already exists: ${input.tool_call_id}`);
  }
  const part_id = toolPartId(input.tool_call_id);
  const part: ToolPart = {
    part_id,
    sequence: nextPartSequence(message),
    type: "tool",
    tool_call_id: input.tool_call_id,
    tool_name: input.tool_name,
    state: "input-streaming",
    input_text: "",
  };
  return { message: appendPart(message, part), mutation: { variant: "part", part_id } };
}

export function appendToolInput(
  message: AssistantMessage,
  tool_call_id: string,
  delta: string,
): AssistantTransition {
  assertOpen(message);
  const index = findToolIndex(message, tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || part.state !== "input-streaming") {
    throw new Error(`Tool input is not streaming: ${tool_call_id}`);
  }
  return {
    message: replacePart(message, index, { ...part, input_text: (part.input_text ?? "") + delta }),
    mutation: { variant: "part", part_id: part.part_id },
  };
}

export type ToolCallOutcome = { input: JsonValue } | { error: string; input?: JsonValue };

/**
 * The model finished the call: `ready` with its validated input, or `failed` with why the input was
 * refused (the model sees the error in the next Step). Creates the part when no input was streamed.
 */
export function settleToolCall(
  message: AssistantMessage,
  call: { tool_call_id: string; tool_name: string; input_text: string },
  outcome: ToolCallOutcome,
): AssistantTransition {
  assertOpen(message);
  const index = findToolIndex(message, call.tool_call_id);
  const existing = message.parts[index];
  if (existing && (existing.type !== "tool" || existing.state !== "input-streaming")) {
    throw new Error(`Tool call already settled: ${call.tool_call_id}`);
  }
  const base: ToolPart =
    existing?.type === "tool"
      ? existing
      : {
          part_id: toolPartId(call.tool_call_id),
          sequence: nextPartSequence(message),
          type: "tool",
          tool_call_id: call.tool_call_id,
          tool_name: call.tool_name,
          state: "input-streaming",
        };
  const settled: ToolPart =
    "error" in outcome
      ? {
          ...base,
          input_text: call.input_text,
          ...(outcome.input === undefined ? {} : { input: outcome.input }),
          state: "failed",
          error: outcome.error,
        }
      : { ...base, input_text: call.input_text, input: outcome.input, state: "ready" };
  const next = existing ? replacePart(message, index, settled) : appendPart(message, settled);
  return { message: next, mutation: { variant: "part", part_id: settled.part_id } };
}

/**
 * A tool about to start its side effect without a person's answer (`always-allow`) is committed
 * `running` first, so a crash from here on fails it as interrupted instead of running it again
 * (docs/behaviour.md#durability). Only a `ready` tool moves; any other state is left as it is.
 */
export function startTool(message: AssistantMessage, tool_call_id: string): AssistantTransition | null {
  const index = findToolIndex(message, tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || part.state !== "ready" || message.status !== "streaming") return null;
  return {
    message: replacePart(message, index, { ...part, state: "running" }),
    mutation: { variant: "part", part_id: part.part_id },
  };
}

/** A tool output; ignored when the tool already ended (e.g. it failed because its Interaction was denied). */
export function completeTool(
  message: AssistantMessage,
  tool_call_id: string,
  output: JsonValue | undefined,
): AssistantTransition | null {
  const index = findToolIndex(message, tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || isTerminalToolState(part.state) || message.status !== "streaming") return null;
  const completed: ToolPart = { ...part, state: "completed", ...(output === undefined ? {} : { output }) };
  return {
    message: replacePart(message, index, completed),
    mutation: { variant: "part", part_id: part.part_id },
  };
}

/** A tool failure; a no-op once the tool is terminal (the first end wins). */
export function failTool(
  message: AssistantMessage,
  tool_call_id: string,
  error: string,
): AssistantTransition | null {
  const index = findToolIndex(message, tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || isTerminalToolState(part.state) || message.status !== "streaming") return null;
  return {
    message: replacePart(message, index, { ...part, state: "failed", error }),
    mutation: { variant: "part", part_id: part.part_id },
  };
}
