import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SessionMessage } from "../../schema/messages.js";
import { define_agent_tool } from "../../tools/define-agent-tool.js";
import { buildModelPrompt, toModelTools } from "./prompt-builder.js";

describe("prompt builder", () => {
  it("hands a person's denial reason to the model as execution-denied, and a bare denial as the error", () => {
    const denied = (id: string, payload: { decision: "denied"; reason?: string }) => ({
      part_id: `tool:${id}`,
      sequence: 1,
      type: "tool" as const,
      tool_call_id: id,
      tool_name: "write_file",
      state: "failed" as const,
      input: { path: "a" },
      error: "Interaction denied",
      interactions: [
        {
          interaction_id: `interaction:${id}`,
          interaction_type: "approval",
          status: "denied" as const,
          request: {
            interaction_id: `interaction:${id}`,
            turn_id: "turn:1",
            type: "approval",
            source: { type: "tool" as const, tool_call_id: id, tool_name: "write_file" },
            payload: { operation: "tool" },
            created_at: 0,
          },
          response: { type: "approval", outcome: "denied" as const, payload },
          resolved_at: 1,
        },
      ],
    });
    const messages: SessionMessage[] = [
      {
        message_id: "a1",
        session_id: "s",
        type: "assistant",
        sequence: 1,
        revision: 3,
        created_at: 0,
        updated_at: 0,
        segment_index: 1,
        status: "completed",
        model_stream: "finished",
        parts: [
          denied("c1", { decision: "denied", reason: "use notes/ instead" }),
          { ...denied("c2", { decision: "denied" }), sequence: 2 },
        ],
      },
    ];
    expect(buildModelPrompt(undefined, messages)[1]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "write_file",
          output: { type: "execution-denied", reason: "use notes/ instead" },
        },
        {
          type: "tool-result",
          toolCallId: "c2",
          toolName: "write_file",
          output: { type: "error-text", value: "Interaction denied" },
        },
      ],
    });
  });

  it("rebuilds system, user turns, and per Step the assistant content followed by tool results", () => {
    const messages: SessionMessage[] = [
      {
        message_id: "u1",
        session_id: "s",
        type: "user",
        input_type: "prompt",
        sequence: 1,
        revision: 1,
        created_at: 0,
        updated_at: 0,
        parts: [{ part_id: "p", type: "text", text: "hi", state: "done" }],
      },
      {
        message_id: "a1",
        session_id: "s",
        type: "assistant",
        sequence: 2,
        revision: 9,
        created_at: 0,
        updated_at: 0,
        segment_index: 1,
        status: "completed",
        model_stream: "finished",
        parts: [
          { part_id: "s1", sequence: 1, type: "step-start" },
          { part_id: "r", sequence: 2, type: "reasoning", text: "think", state: "done" },
          { part_id: "t", sequence: 3, type: "text", text: "calling", state: "done" },
          {
            part_id: "tool:c1",
            sequence: 4,
            type: "tool",
            tool_call_id: "c1",
            tool_name: "ok",
            state: "completed",
            input: { a: 1 },
            output: { done: true },
          },
          {
            part_id: "tool:c2",
            sequence: 5,
            type: "tool",
            tool_call_id: "c2",
            tool_name: "bad",
            state: "failed",
            input_text: "{",
            error: "Unknown tool: bad",
          },
          { part_id: "s2", sequence: 6, type: "step-start" },
          { part_id: "t2", sequence: 7, type: "text", text: "final", state: "done" },
        ],
      },
      {
        message_id: "e",
        session_id: "s",
        type: "error",
        scope: "turn",
        code: "x",
        message: "y",
        recoverable: true,
        sequence: 3,
        revision: 1,
        created_at: 0,
        updated_at: 0,
      },
    ];
    expect(buildModelPrompt("be brief", messages)).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "think" },
          { type: "text", text: "calling" },
          { type: "tool-call", toolCallId: "c1", toolName: "ok", input: { a: 1 } },
          { type: "tool-call", toolCallId: "c2", toolName: "bad", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "ok",
            output: { type: "json", value: { done: true } },
          },
          {
            type: "tool-result",
            toolCallId: "c2",
            toolName: "bad",
            output: { type: "error-text", value: "Unknown tool: bad" },
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "final" }] },
    ]);
  });

  it("offers tools with JSON schemas from their zod input schemas", () => {
    const tool = define_agent_tool({
      description: "d",
      input_schema: z.object({ path: z.string() }),
      execute: () => null,
    });
    const [offered] = toModelTools({ read: tool });
    expect(offered).toMatchObject({ type: "function", name: "read", description: "d" });
    expect(offered?.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    });
  });
});
