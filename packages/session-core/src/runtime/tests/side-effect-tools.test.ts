import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { JsonValue } from "../../schema/json.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { ToolPart, ToolState } from "../../schema/parts.js";
import { toolPartsOfMutation } from "../../testing/mutation-recorder.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { type AnyAgentTool, define_agent_tool, type ToolSideEffects } from "../../tools/define-agent-tool.js";
import { approve, turnFinish } from "./durable-fixtures.js";
import { createApprovalTool, createBlockingTool } from "./tools.js";

/**
 * Exactly once for every tool with a side effect (DESIGN §10.6 checkpoint 4,
 * docs/behaviour.md#side-effects): what is committed around a tool's `execute`, by its declaration.
 */

function toolMark(part: ToolPart): string {
  const mark = part.auto_approved === undefined ? "" : ` (${part.auto_approved})`;
  return `${part.tool_call_id} ${part.state}${mark}`;
}

/** One durable mutation, by kind: `turn start`, `message user`, `part tool`. */
function summary(mutation: SessionMutation): string {
  if (mutation.variant === "turn") return `turn ${mutation.type}`;
  if (mutation.variant === "message") return `message ${mutation.message.type}`;
  if (mutation.variant === "part") return `part ${mutation.part.type}`;
  return mutation.variant;
}

/**
 * The durable mutations that carry one tool's part, summarised: `part call_1 running` for a `part`
 * mutation, `message call_1 running` for a whole-message one (a checkpoint that created the message
 * or changed several parts, §10.6). Every durable state counts; `input-streaming` and `ready` are
 * live (never committed on their own), so they appear here only inside a later checkpoint, if ever.
 */
function aroundTool(harness: RuntimeHarness, session_id: string, tool_call_id: string): string[] {
  return harness.mutations(session_id).flatMap((mutation) => {
    const parts = toolPartsOfMutation(mutation).filter((part) => part.tool_call_id === tool_call_id);
    return parts.map((part) => `${mutation.variant} ${toolMark(part)}`);
  });
}

/**
 * A tool that never asks: records the state stored for its part when `execute` starts ("none" when
 * nothing of it is committed yet: its `ready` was live only), then acts.
 */
function recordingTool(side_effects: ToolSideEffects | undefined) {
  const effects: string[] = [];
  const seen: (ToolState | "none")[] = [];
  let harness: RuntimeHarness | undefined;
  const tool = define_agent_tool({
    description: "Writes a note.",
    input_schema: z.object({ note: z.string() }),
    ...(side_effects === undefined ? {} : { side_effects }),
    async execute(input, context) {
      const session_id = context.session_id;
      seen.push(harness ? await storedState(harness, session_id, context.tool_call_id) : "none");
      effects.push(input.note);
      return { written: input.note };
    },
  });
  return { tool, effects, seen, attach: (value: RuntimeHarness) => (harness = value) };
}

async function storedState(
  harness: RuntimeHarness,
  session_id: string,
  tool_call_id: string,
): Promise<ToolState | "none"> {
  for (const message of await harness.assistants(session_id)) {
    for (const part of message.parts) {
      if (part.type === "tool" && part.tool_call_id === tool_call_id) return part.state;
    }
  }
  return "none";
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
    it(`a tool with side effects (the default) that never asks is committed running before execute (${mode}): its message's first commit`, async () => {
      const recording = recordingTool(undefined);
      const { harness, session } = await runOneCall(recording.tool, mode);
      recording.attach(harness);
      const turn = await session.prompt({ query: "write" });
      expect(await turn.finished).toMatchObject({ success: true, text: "done" });
      expect(recording.seen).toEqual(["running"]);
      expect(recording.effects).toEqual(["n"]);
      // Checkpoint 4 inserts the message (a whole `message` mutation), the result changes one part.
      expect(aroundTool(harness, session.id, "call_1")).toEqual([
        "message call_1 running",
        "part call_1 completed",
        "message call_1 completed",
      ]);
      expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    });
  }

  it("a tool that declares no side effect gets no checkpoint: nothing of it is committed before execute, its result is the first commit", async () => {
    const recording = recordingTool(false);
    const { harness, session } = await runOneCall(recording.tool, "always-allow");
    recording.attach(harness);
    const turn = await session.prompt({ query: "read" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(recording.seen).toEqual(["none"]);
    expect(recording.effects).toEqual(["n"]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "message call_1 completed",
      "message call_1 completed",
    ]);
  });

  it("an always-allow tool that acts only after asking (write_file's kind) is committed running once, by its approval, before the side effect", async () => {
    const approval = createApprovalTool("tool");
    const { harness, session } = await runOneCall(approval.tool, "always-allow", { path: "a.txt" });
    const turn = await session.prompt({ query: "write" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(approval.effects).toEqual(["a.txt"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "message call_1 running (always-allow)",
      "part call_1 completed (always-allow)",
      "message call_1 completed (always-allow)",
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
      "message call_1 waiting-user",
      "part call_1 running",
      "part call_1 completed",
      "message call_1 completed",
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
      "message call_1 running",
      "part call_1 waiting-user",
      "part call_1 running",
      "part call_1 completed",
      "message call_1 completed",
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
      "message call_1 running",
      "part call_1 running (always-allow)",
      "part call_1 completed (always-allow)",
      "message call_1 completed (always-allow)",
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
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([
      "message call_1 running",
      "part call_1 failed",
      "message call_1 failed",
    ]);
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "write",
        output: { type: "error-text", value: "Tool interrupted by server restart" },
      },
    ]);
  });

  it("a tool that declares no side effect, killed while only its ready was live: lost with its Step, never run again; the Turn ends interrupted", async () => {
    const blocking = createBlockingTool({ side_effects: false });
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "read", input: {} } }],
      [{ text: "after the crash" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { read: blocking.tool } });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "read" });
    await blocking.started;
    // Nothing of the Step is committed: its message and the tool's `ready` are live only.
    expect(await harness.assistants(session.id)).toEqual([]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    await harness.kill("A");
    blocking.finish("late");
    const finished = turnFinish(harness, turn.id);
    harness.runtime("B");
    // §3.3: a cut Step is not replayed. Its message was never committed, so none is closed.
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(blocking.calls()).toBe(1);
    expect(model.calls).toHaveLength(1);
    expect(aroundTool(harness, session.id, "call_1")).toEqual([]);
    expect(harness.mutations(session.id).map(summary)).toEqual([
      "turn start",
      "message user",
      "message error",
      "turn finish",
    ]);
    expect((await harness.messages(session.id)).at(-1)).toMatchObject({
      type: "error",
      code: "turn_interrupted",
      recoverable: true,
    });
  });

  it("a tool that declares no side effect whose ready a sibling's checkpoint committed runs again after the crash and completes", async () => {
    const write = createBlockingTool();
    const read = createBlockingTool({ side_effects: false });
    const model = createScriptedModel([
      [
        { tool_call: { id: "call_w", name: "write", input: {} } },
        { tool_call: { id: "call_r", name: "read", input: {} } },
      ],
      [{ text: "after the crash" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { write: write.tool, read: read.tool } });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "write and read" });
    await write.started;
    await read.started;
    // The write's checkpoint 4 inserted the message, and with it the read's `ready`.
    expect(await harness.tool(session.id, "call_w")).toMatchObject({ state: "running" });
    expect(await harness.tool(session.id, "call_r")).toMatchObject({ state: "ready" });
    await harness.kill("A");
    write.finish("late");
    read.finish("read again");
    const finished = turnFinish(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "after the crash" });
    expect(harness.takenOverBy("B")).toEqual([session.id]);
    expect(write.calls()).toBe(1);
    expect(read.calls()).toBe(2);
    expect(await harness.tool(session.id, "call_w")).toMatchObject({
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    expect(await harness.tool(session.id, "call_r")).toMatchObject({
      state: "completed",
      output: { result: "read again" },
    });
    expect(aroundTool(harness, session.id, "call_r")).toEqual([
      "message call_r ready",
      "part call_r completed",
      "message call_r completed",
    ]);
  });
});
