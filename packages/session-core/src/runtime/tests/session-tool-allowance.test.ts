import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../schema/messages.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { RuntimeHarness } from "../runtime-harness.js";
import { createApprovalTool } from "./tools.js";

function toolMarks(messages: SessionMessage[]): Record<string, string | null> {
  const marks: Record<string, string | null> = {};
  for (const message of messages) {
    if (message.type !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type === "tool") marks[part.tool_call_id] = part.auto_approved ?? null;
    }
  }
  return marks;
}

describe("allow a tool for the rest of the session, and the auto-approved mark", () => {
  it("an approval with scope session lets later calls of that tool run unasked, marked; other tools still ask", async () => {
    const remove = createApprovalTool("delete_file");
    const write = createApprovalTool("write_file");
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ tool_call: { id: "call_b", name: "delete_file", input: { path: "b" } } }],
      [{ tool_call: { id: "call_c", name: "write_file", input: { path: "c" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({
      model,
      tools: { delete_file: remove.tool, write_file: write.tool },
    });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const first = await harness.pendingInteraction("call_a");
    await session.respond({
      interaction_id: first,
      response: {
        type: "approval",
        outcome: "resolved",
        payload: { decision: "approved", scope: "session" },
      },
    });
    const third = await harness.pendingInteraction("call_c");
    await session.respond({
      interaction_id: third,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    expect(remove.decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: first, input: { path: "a" } },
      { approved: true, auto_approved: true, input: { path: "b" } },
    ]);
    expect(write.decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: third, input: { path: "c" } },
    ]);
    expect(remove.effects).toEqual(["a", "b"]);
    expect(toolMarks(await harness.messages(session.id))).toEqual({
      call_a: null,
      call_b: "session-tool",
      call_c: null,
    });
  });

  it("a call run under always-allow carries the always-allow mark", async () => {
    const remove = createApprovalTool("delete_file");
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: remove.tool } });
    const session = await harness.createSession();
    await session.set({ security: { approval_mode: "always-allow" } });
    await (await session.prompt({ query: "go" })).finished;
    expect(toolMarks(await harness.messages(session.id))).toEqual({ call_a: "always-allow" });
  });

  it("refuses a scope other than once or session, and scope session on a denial", async () => {
    const remove = createApprovalTool("delete_file");
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: remove.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_a");
    await expect(
      session.respond({
        interaction_id,
        response: {
          type: "approval",
          outcome: "resolved",
          payload: { decision: "approved", scope: "forever" },
        },
      }),
    ).rejects.toMatchObject({
      code: "interaction_invalid_response",
      message: "Session Interaction approval scope must be once or session",
    });
    await expect(
      session.respond({
        interaction_id,
        response: { type: "approval", outcome: "denied", payload: { decision: "denied", scope: "session" } },
      }),
    ).rejects.toMatchObject({
      code: "interaction_invalid_response",
      message: "Session Interaction approval scope session needs decision approved",
    });
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "denied", payload: { decision: "denied", reason: "not now" } },
    });
    await turn.finished;
    expect(remove.effects).toEqual([]);
  });
});
