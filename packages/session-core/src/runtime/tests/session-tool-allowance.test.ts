import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../schema/messages.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { actions, codeAndMessage } from "./config-assertions.js";
import { createApprovalTool, createCommandTool } from "./tools.js";

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

/** A session whose model makes one `delete_file` call (`call_a`, which asks) and then says "done". */
async function oneDeleteCall() {
  const remove = createApprovalTool("delete_file");
  const model = createScriptedModel([
    [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
    [{ text: "done" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { delete_file: remove.tool } });
  return { remove, harness, session: await harness.createSession() };
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

  it("of two answers at once, only the one that commits grants: a losing 'allow for this session' adds nothing", async () => {
    const { remove, harness, session } = await oneDeleteCall();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_a");
    const onB = await harness.runtime("B").openSession(session.id);
    if (!onB) throw new Error("session not found on B");
    const [once, forSession] = await Promise.allSettled([
      session.respond({
        interaction_id,
        response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      }),
      onB.respond({
        interaction_id,
        response: {
          type: "approval",
          outcome: "resolved",
          payload: { decision: "approved", scope: "session" },
        },
      }),
    ]);
    expect([once.status, forSession.status].sort()).toEqual(["fulfilled", "rejected"]);
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    expect(remove.effects).toEqual(["a"]);
    const granted = forSession.status === "fulfilled" ? [{ tool_name: "delete_file" }] : [];
    expect((await session.status()).security.tool_allowances).toEqual(granted);
  });

  it("a call run under always-allow carries the always-allow mark", async () => {
    const { harness, session } = await oneDeleteCall();
    await session.set({ security: { approval_mode: "always-allow" } });
    await (await session.prompt({ query: "go" })).finished;
    expect(toolMarks(await harness.messages(session.id))).toEqual({ call_a: "always-allow" });
  });

  it("refuses a scope other than once or session, and scope session on a denial", async () => {
    const { remove, harness, session } = await oneDeleteCall();
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

  it("a shell allowance covers only commands starting with its prefix as whole words, without control operators", async () => {
    const shell = createCommandTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "shell", input: { command: "npm test -- --run a" } } }],
      [{ tool_call: { id: "call_b", name: "shell", input: { command: "npm   test" } } }],
      [{ tool_call: { id: "call_c", name: "shell", input: { command: "npm test && rm -rf ~" } } }],
      [{ tool_call: { id: "call_d", name: "shell", input: { command: "npm testing" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { shell: shell.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const first = await harness.pendingInteraction("call_a");
    await session.respond({
      interaction_id: first,
      response: {
        type: "approval",
        outcome: "resolved",
        payload: { decision: "approved", scope: "session", allow: { command_prefix: " npm  test " } },
      },
    });
    for (const tool_call_id of ["call_c", "call_d"]) {
      const interaction_id = await harness.pendingInteraction(tool_call_id);
      await session.respond({
        interaction_id,
        response: { type: "approval", outcome: "denied", payload: { decision: "denied" } },
      });
    }
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    expect(shell.effects).toEqual(["npm test -- --run a", "npm   test"]);
    expect(toolMarks(await harness.messages(session.id))).toEqual({
      call_a: null,
      call_b: "session-tool",
      call_c: null,
      call_d: null,
    });
    expect((await session.status()).security).toEqual({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [{ tool_name: "shell", command_prefix: "npm test" }],
      effective_tool_allowances: [{ tool_name: "shell", command_prefix: "npm test" }],
    });
    expect((await actions(harness, session.id)).map((action) => action.description)).toEqual([
      'security.tool_allowances: shell "npm test"',
    ]);
  });

  it("refuses a session scope the answer cannot scope: no prefix for a command, a bad prefix, a prefix elsewhere", async () => {
    const shell = createCommandTool();
    const remove = createApprovalTool("delete_file");
    const model = createScriptedModel([
      [
        { tool_call: { id: "call_a", name: "shell", input: { command: "npm test" } } },
        { tool_call: { id: "call_b", name: "delete_file", input: { path: "b" } } },
      ],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { shell: shell.tool, delete_file: remove.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const command = await harness.pendingInteraction("call_a");
    const file = await harness.pendingInteraction("call_b");
    const approve = (interaction_id: string, extra: Record<string, unknown>) =>
      codeAndMessage(
        session.respond({
          interaction_id,
          response: {
            type: "approval",
            outcome: "resolved",
            payload: { decision: "approved", ...extra } as never,
          },
        }),
      );
    expect(await approve(command, { scope: "session" })).toEqual([
      "interaction_invalid_response",
      "Session Interaction approval scope session for a command needs allow.command_prefix",
    ]);
    expect(await approve(command, { scope: "session", allow: { command_prefix: "npm test && rm" } })).toEqual(
      [
        "interaction_invalid_response",
        "Session Interaction approval allow.command_prefix is invalid: command_prefix must not contain shell control operators",
      ],
    );
    expect(await approve(command, { scope: "session", allow: { command_prefix: "rm" } })).toEqual([
      "interaction_invalid_response",
      "Session Interaction approval allow.command_prefix must be the start of the approved command",
    ]);
    expect(await approve(command, { allow: { command_prefix: "npm" } })).toEqual([
      "interaction_invalid_response",
      "Session Interaction approval allow needs scope session",
    ]);
    expect(await approve(file, { scope: "session", allow: { command_prefix: "b" } })).toEqual([
      "interaction_invalid_response",
      "Session Interaction approval allow.command_prefix applies only to a command approval",
    ]);
    expect((await session.status()).security.tool_allowances).toEqual([]);
    expect(await approve(command, {})).toEqual(["resolved", ""]);
    expect(await approve(file, {})).toEqual(["resolved", ""]);
    await turn.finished;
  });

  it("G57: an allowance set mid-Step applies from the next Step; revoking it asks again from the next Step", async () => {
    const remove = createApprovalTool("delete_file");
    const model = createScriptedModel([
      [{ block: "step-1" }, { tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ tool_call: { id: "call_b", name: "delete_file", input: { path: "b" } } }],
      [{ text: "one" }],
      [{ tool_call: { id: "call_c", name: "delete_file", input: { path: "c" } } }],
      [{ text: "two" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: remove.tool } });
    const session = await harness.createSession();
    const first = await session.prompt({ query: "go" });
    await model.reached("step-1");
    expect(await session.set({ security: { tool_allowances: [{ tool_name: "delete_file" }] } })).toEqual({
      queued: true,
    });
    expect((await session.status()).security).toMatchObject({
      tool_allowances: [{ tool_name: "delete_file" }],
      effective_tool_allowances: [],
    });
    model.release("step-1");
    const asked = await harness.pendingInteraction("call_a");
    await session.respond({
      interaction_id: asked,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(await first.finished).toMatchObject({ success: true, text: "one" });
    expect((await session.status()).security).toMatchObject({
      tool_allowances: [{ tool_name: "delete_file" }],
      effective_tool_allowances: [{ tool_name: "delete_file" }],
    });
    expect(await session.set({ security: { tool_allowances: [] } })).toEqual({ queued: true });
    expect(await session.set({ security: { tool_allowances: [] } })).toEqual({ queued: false });
    const second = await session.prompt({ query: "again" });
    const again = await harness.pendingInteraction("call_c");
    await session.respond({
      interaction_id: again,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(await second.finished).toMatchObject({ success: true, text: "two" });
    expect(toolMarks(await harness.messages(session.id))).toEqual({
      call_a: null,
      call_b: "session-tool",
      call_c: null,
    });
    expect((await session.status()).security).toMatchObject({
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect((await actions(harness, session.id)).map((action) => action.description)).toEqual([
      "security.tool_allowances: delete_file",
      "security.tool_allowances: none",
    ]);
  });

  it("session.set refuses a malformed allowance list with invalid_input", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    expect(
      await codeAndMessage(
        session.set({ security: { tool_allowances: [{ tool_name: "shell", command_prefix: "a | b" }] } }),
      ),
    ).toEqual([
      "invalid_input",
      "security.tool_allowances.0.command_prefix: command_prefix must not contain shell control operators",
    ]);
    expect((await session.status()).security.tool_allowances).toEqual([]);
  });
});
