import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnyAgentTool, SessionMutation } from "@parley/session-core";
import { createScriptedModel, RuntimeHarness, toolPartsOfMutation } from "@parley/session-core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "./read-file-tool.js";
import { writeFileTool } from "./write-file-tool.js";

/*
 * The built-in tools under the runtime's checkpoint 4 (docs/behaviour.md#side-effects): write_file
 * in `always-allow` is committed `running` once, by its approval, before it writes, and a crash
 * after that never writes again; read_file declares no side effect, so nothing of it is committed
 * before it reads: a crash before its Step's first commit loses the Step (§3.3), and it never reads
 * again.
 */

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-side-effects-")));
  root = path.join(base, "workspace");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "remember the milk");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/**
 * `tool` whose `execute` counts its runs and, after the real tool returned (its side effect done),
 * holds its result until `release`: the window between checkpoint 4 and the result's commit.
 */
function held(tool: AnyAgentTool) {
  let calls = 0;
  let release!: () => void;
  let acted!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const didAct = new Promise<void>((resolve) => {
    acted = resolve;
  });
  const wrapped: AnyAgentTool = {
    ...tool,
    async execute(input, context) {
      calls += 1;
      const output = await tool.execute(input, context);
      acted();
      await gate;
      return output;
    },
  };
  return { tool: wrapped, calls: () => calls, release, acted: didAct };
}

function harnessFor(name: string, tool: AnyAgentTool, input: Record<string, string>) {
  const model = createScriptedModel([[{ tool_call: { id: "call_1", name, input } }], [{ text: "done" }]]);
  return new RuntimeHarness({
    model,
    tools: { [name]: tool },
    workspace: { workspace_id: null, root },
  });
}

/**
 * The tool part a durable mutation carries, as `<variant> <state> (<mark>)`: a `message` mutation
 * for the message's first commit or a change of several parts, a `part` mutation otherwise (§10.6).
 */
function toolSummary(mutation: SessionMutation): string[] {
  return toolPartsOfMutation(mutation).map((part) => {
    const mark = part.auto_approved === undefined ? "" : ` (${part.auto_approved})`;
    return `${mutation.variant} ${part.state}${mark}`;
  });
}

function turnFinished(harness: RuntimeHarness, turn_id: string) {
  return harness.waitFor(
    (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id,
  );
}

describe("built-in tools and checkpoint 4", () => {
  it("always-allow write_file: its tool part is committed running exactly once, before the write", async () => {
    const write = held(writeFileTool);
    const harness = harnessFor("write_file", write.tool, { path: "new.txt", content: "hello" });
    const session = await harness.createSession({ approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "write" });
    await write.acted;
    expect(await readFile(path.join(root, "new.txt"), "utf8")).toBe("hello");
    // Committed before the write: the stored part is `running` while the result is still held.
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "running",
      auto_approved: "always-allow",
    });
    write.release();
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    const states = harness.mutations(session.id).flatMap(toolSummary);
    // The approval's commit is the message's first: it inserts it whole; the close repeats the part.
    expect(states).toEqual([
      "message running (always-allow)",
      "part completed (always-allow)",
      "message completed (always-allow)",
    ]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    await harness.shutdown();
  });

  it("always-allow write_file killed after its checkpoint and before its result: failed as interrupted, never written again", async () => {
    const write = held(writeFileTool);
    const harness = harnessFor("write_file", write.tool, { path: "new.txt", content: "hello" });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "write" });
    await write.acted;
    await harness.kill("A");
    // Someone changes the file after the crash: a second write would put "hello" back.
    await writeFile(path.join(root, "new.txt"), "changed since");
    write.release();
    const finished = turnFinished(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "done" });
    expect(write.calls()).toBe(1);
    expect(await readFile(path.join(root, "new.txt"), "utf8")).toBe("changed since");
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    await harness.shutdown();
  });

  it("read_file killed at the same place, before anything of its Step was committed: lost with its Step, never read again", async () => {
    const read = held(readFileTool);
    const harness = harnessFor("read_file", read.tool, { path: "notes.txt" });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "read" });
    await read.acted;
    // No checkpoint before a tool without side effects: its message and its `ready` are live only.
    expect(await harness.assistants(session.id)).toEqual([]);
    expect(harness.liveToolStates(session.id, "call_1")).toEqual(["input-streaming", "ready"]);
    await harness.kill("A");
    read.release();
    const finished = turnFinished(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "failed", error: "Turn interrupted by server restart" });
    expect(read.calls()).toBe(1);
    expect(await harness.assistants(session.id)).toEqual([]);
    expect((await harness.messages(session.id)).map((message) => message.type)).toEqual(["user", "error"]);
    expect((await harness.messages(session.id)).at(-1)).toMatchObject({
      type: "error",
      code: "turn_interrupted",
      recoverable: true,
    });
    await harness.shutdown();
  });
});
