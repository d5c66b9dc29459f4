import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { JsonValue } from "../../schema/json.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { ToolState } from "../../schema/parts.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { type AnyAgentTool, define_agent_tool, type ToolSideEffects } from "../../tools/define-agent-tool.js";
import { approve, turnFinish } from "./durable-fixtures.js";
import { createApprovalTool, createBlockingTool } from "./tools.js";

/**
 * Exactly once for every tool with a side effect (DESIGN §10.6 checkpoint 4,
 * docs/behaviour.md#side-effects): what is committed around a tool's `execute`, by its declaration.
 */

/** One durable mutation of a session, reduced to what the checkpoint rule is about. */
function summary(mutation: SessionMutation): string {
  if (mutation.variant === "part" && mutation.part.type === "tool") {
    const mark = mutation.part.auto_approved === undefined ? "" : ` (${mutation.part.auto_approved})`;
    return `part ${mutation.part.tool_call_id} ${mutation.part.state}${mark}`;
  }
  if (mutation.variant === "part") return `part ${mutation.part.type}`;
  if (mutation.variant === "message") return `message ${mutation.message.type}`;
  if (mutation.variant === "turn") return `turn ${mutation.type}`;
  return mutation.variant;
}

/**
 * The durable `part` mutations of one tool from its input's end to its own end, summarised. Its
 * `input-streaming` and `ready` are left out: they are live states (§10.6), whichever way the writer
 * publishes them, and the rule is about what comes after.
 */
function aroundTool(harness: RuntimeHarness, session_id: string, tool_call_id: string): string[] {
  const prefix = `part ${tool_call_id} `;
  return harness
    .mutations(session_id)
    .map(summary)
    .filter((item) => item.startsWith(prefix))
    .filter((item) => !item.startsWith(`${prefix}input-streaming`) && !item.startsWith(`${prefix}ready`));
}

/** A tool that never asks: records the state stored for its part when `execute` starts, then acts. */
function recordingTool(side_effects: ToolSideEffects | undefined) {
  const effects: string[] = [];
  const seen: (ToolState | undefined)[] = [];
  let harness: RuntimeHarness | undefined;
  const tool = define_agent_tool({
    description: "Writes a note.",
    input_schema: z.object({ note: z.string() }),
    ...(side_effects === undefined ? {} : { side_effects }),
    async execute(input, context) {
      const session_id = context.session_id;
      seen.push(harness ? (await harness.tool(session_id, context.tool_call_id)).state : undefined);
      effects.push(input.note);
      return { written: input.note };
    },
  });
  return { tool, effects, seen, attach: (value: RuntimeHarness) => (harness = value) };
}

async function runOneCall(
  tool: AnyAgentTool,
  approval_mode: ApprovalMode,
  input: { [key: string]: JsonValue } = { note: "n" },
) {
  const model = createScriptedModel([
    [{ tool_call: { id: "call_1", name: "tool", input } }],
    [{ text: "done" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { tool } });
  const session = await harness.createSession({ approval_mode });
  return { harness, session, model };
}

describe("side effects: checkpoint 4", () => {
  for (const mode of ["always-allow", "ask"] as const) {
    it(`a tool with side effects (the default) that never asks is committed running before execute (${mode}): one part mutation`, async () => {
      const recording = recordingTool(undefined);
      const { harness, session } = await runOneCall(recording.tool, mode);
      recording.attach(harness);
      const turn = await session.prompt({ query: "write" });
      expect(await turn.finished).toMatchObject({ success: true, text: "done" });
      expect(recording.seen).toEqual(["running"]);
      expect(recording.effects).toEqual(["n"]);
      expect(aroundTool(harness, session.id, "call_1")).toEqual([
        "part call_1 running",
        "part call_1 completed",
      ]);
    });
  }

  it("a tool that declares no side effect gets no checkpoint: ready, then its result", async () => {
    const recording = recordingTool(false);
    const { harness, session } = await runOneCall(recording.tool, "always-allow");
    recording.attach(harness);
    const turn = await session.prompt({ query: "read" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(recording.seen).toEqual(["ready"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual(["part call_1 completed"]);
  });

  it("an always-allow tool that acts only after asking (write_file's kind) is committed running once, by its approval, before the side effect", async () => {
    const approval = createApprovalTool("tool");
    const { harness, session } = await runOneCall(approval.tool, "always-allow", { path: "a.txt" });
    const turn = await session.prompt({ query: "write" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(approval.effects).toEqual(["a.txt"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "part call_1 running (always-allow)",
      "part call_1 completed (always-allow)",
    ]);
  });

  it("in ask mode a tool that acts only after asking has its Interaction as checkpoint: no running before it", async () => {
    const approval = createApprovalTool("tool");
    const { harness, session } = await runOneCall(approval.tool, "ask", { path: "a.txt" });
    const turn = await session.prompt({ query: "write" });
    const interaction_id = await harness.pendingInteraction("call_1");
    expect(approval.effects).toEqual([]);
    await session.respond(approve(interaction_id));
    expect(await turn.finished).toMatchObject({ success: true });
    expect(approval.effects).toEqual(["a.txt"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "part call_1 waiting-user",
      "part call_1 running",
      "part call_1 completed",
    ]);
  });

  it("a tool with side effects that asks in the middle of execute: running before execute, then its Interaction and answer", async () => {
    const approval = createApprovalTool("tool");
    const tool: AnyAgentTool = { ...approval.tool, side_effects: true };
    const { harness, session } = await runOneCall(tool, "ask", { path: "a.txt" });
    const turn = await session.prompt({ query: "write" });
    await session.respond(approve(await harness.pendingInteraction("call_1")));
    expect(await turn.finished).toMatchObject({ success: true });
    expect(approval.effects).toEqual(["a.txt"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "part call_1 running",
      "part call_1 waiting-user",
      "part call_1 running",
      "part call_1 completed",
    ]);
  });

  it("a tool with side effects that asks in always-allow: running before execute, then its approval's mark", async () => {
    const approval = createApprovalTool("tool");
    const tool: AnyAgentTool = { ...approval.tool, side_effects: true };
    const { harness, session } = await runOneCall(tool, "always-allow", { path: "a.txt" });
    const turn = await session.prompt({ query: "write" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(approval.effects).toEqual(["a.txt"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "part call_1 running",
      "part call_1 running (always-allow)",
      "part call_1 completed (always-allow)",
    ]);
  });
});

describe("side effects: a crash after checkpoint 4", () => {
  it("a tool with side effects killed while running fails as interrupted and never runs again; the Turn goes on", async () => {
    const blocking = createBlockingTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "write", input: {} } }],
      [{ text: "after the crash" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { write: blocking.tool } });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "write" });
    await blocking.started;
    expect(await harness.tool(session.id, "call_1")).toMatchObject({ state: "running" });
    await harness.kill("A");
    blocking.finish("late");
    const finished = turnFinish(harness, turn.id);
    // B starts: its recovery loop's first pass (a server's startup recovery) takes the Turn over.
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "after the crash" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(blocking.calls()).toBe(1);
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    expect(harness.toolStates(session.id, "call_1")).toEqual([
      "input-streaming",
      "ready",
      "running",
      "failed",
    ]);
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "write",
        output: { type: "error-text", value: "Tool interrupted by server restart" },
      },
    ]);
  });

  it("a tool that declares no side effect, killed in the same place, runs again and completes", async () => {
    const blocking = createBlockingTool({ side_effects: false });
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "read", input: {} } }],
      [{ text: "after the crash" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { read: blocking.tool } });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "read" });
    await blocking.started;
    expect(await harness.tool(session.id, "call_1")).toMatchObject({ state: "ready" });
    await harness.kill("A");
    blocking.finish("read again");
    const finished = turnFinish(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "after the crash" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(blocking.calls()).toBe(2);
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "completed",
      output: { result: "read again" },
    });
    expect(aroundTool(harness, session.id, "call_1")).toEqual(["part call_1 completed"]);
  });
});
