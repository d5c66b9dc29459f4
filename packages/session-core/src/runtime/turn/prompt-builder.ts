import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
} from "@ai-sdk/provider";
import { z } from "zod";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { AssistantPart, ToolPart } from "../../schema/parts.js";
import type { AnyAgentTool } from "../../tools/define-agent-tool.js";

type AssistantContent = Extract<LanguageModelV3Message, { role: "assistant" }>["content"];
type ToolContent = Extract<LanguageModelV3Message, { role: "tool" }>["content"];

/**
 * The provider prompt of the next Step, rebuilt from persisted messages every time (so a resumed
 * Turn sends exactly what an uninterrupted one would): system, user/steer text, and per assistant
 * Step its text, reasoning and tool calls followed by their results or errors. Actions and error
 * messages are for people, not for the model.
 */
export function buildModelPrompt(
  system: string | undefined,
  messages: SessionMessage[],
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.type === "user") {
      prompt.push({
        role: "user",
        content: message.parts.map((part) => ({ type: "text", text: part.text })),
      });
    } else if (message.type === "assistant") {
      for (const step of splitSteps(message)) prompt.push(...stepMessages(step));
    }
  }
  return prompt;
}

function splitSteps(message: AssistantMessage): AssistantPart[][] {
  const steps: AssistantPart[][] = [];
  for (const part of [...message.parts].sort((left, right) => left.sequence - right.sequence)) {
    if (part.type === "step-start" || steps.length === 0) steps.push([]);
    if (part.type !== "step-start") steps[steps.length - 1]?.push(part);
  }
  return steps;
}

function stepMessages(parts: AssistantPart[]): LanguageModelV3Message[] {
  const content: AssistantContent = [];
  const results: ToolContent = [];
  for (const part of parts) {
    if (part.type === "text" && part.text.length > 0) content.push({ type: "text", text: part.text });
    else if (part.type === "reasoning" && part.text.length > 0)
      content.push({ type: "reasoning", text: part.text });
    else if (part.type === "tool") {
      content.push({
        type: "tool-call",
        toolCallId: part.tool_call_id,
        toolName: part.tool_name,
        input: callInput(part),
      });
      results.push({
        type: "tool-result",
        toolCallId: part.tool_call_id,
        toolName: part.tool_name,
        output: toolOutput(part),
      });
    }
  }
  const messages: LanguageModelV3Message[] = [];
  if (content.length > 0) messages.push({ role: "assistant", content });
  if (results.length > 0) messages.push({ role: "tool", content: results });
  return messages;
}

function callInput(part: ToolPart): unknown {
  if (part.input !== undefined) return part.input;
  try {
    return part.input_text ? JSON.parse(part.input_text) : {};
  } catch {
    return {};
  }
}

function toolOutput(part: ToolPart): LanguageModelV3ToolResultOutput {
  if (part.state === "completed") return { type: "json", value: part.output ?? null };
  const reason = denialReason(part);
  // docs/behaviour.md#approvals: a person's reason for denying reaches the model with the result.
  if (part.state === "failed" && reason !== undefined) return { type: "execution-denied", reason };
  if (part.state === "failed") return { type: "error-text", value: part.error ?? "Tool failed" };
  return { type: "error-text", value: `Tool did not complete (${part.state})` };
}

/** The `payload.reason` a person gave when denying this tool's Interaction, if they gave one. */
function denialReason(part: ToolPart): string | undefined {
  for (const interaction of part.interactions ?? []) {
    if (interaction.status !== "denied") continue;
    const payload = interaction.response?.payload;
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) continue;
    const reason = payload.reason;
    if (typeof reason === "string" && reason.trim() !== "") return reason;
  }
  return undefined;
}

/** The function tools offered to the model; input JSON schemas come from the tools' zod schemas. */
export function toModelTools(tools: Record<string, AnyAgentTool>): LanguageModelV3FunctionTool[] {
  return Object.entries(tools).map(([name, tool]) => ({
    type: "function",
    name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input_schema, {
      io: "input",
      unrepresentable: "any",
    }) as LanguageModelV3FunctionTool["inputSchema"],
  }));
}
