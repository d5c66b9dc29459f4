import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AnyAgentTool, SessionMutation } from "@parley/session-core";
import { createScriptedModel, RuntimeHarness } from "@parley/session-core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "./read-file-tool.js";
import { writeFileTool } from "./write-file-tool.js";

/*
 * The built-in tools under the runtime's checkpoint 4 (docs/behaviour.md#side-effects): write_file
 * in `always-allow` is committed `running` once, by its approval, before it writes, and a crash
 * after that never writes again; read_file declares no side effect and simply runs again.
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

/** A tool's durable `part` mutation past its input (`input-streaming` and `ready` are live states, §10.6). */
function toolSummary(mutation: SessionMutation): string | null {
  if (mutation.variant !== "part" || mutation.part.type !== "tool") return null;
  if (mutation.part.state === "input-streaming" || mutation.part.state === "ready") return null;
  const mark = mutation.part.auto_approved === undefined ? "" : ` (${mutation.part.auto_approved})`;
  return `${mutation.part.state}${mark}`;
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
    const states = harness.mutations(session.id).flatMap((mutation) => toolSummary(mutation) ?? []);
    expect(states).toEqual(["running (always-allow)", "completed (always-allow)"]);
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

  it("read_file killed at the same place runs again on the survivor and completes", async () => {
    const read = held(readFileTool);
    const harness = harnessFor("read_file", read.tool, { path: "notes.txt" });
    const session = await harness.createSession({ process_id: "A", approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "read" });
    await read.acted;
    expect(await harness.tool(session.id, "call_1")).toMatchObject({ state: "ready" });
    await harness.kill("A");
    read.release();
    const finished = turnFinished(harness, turn.id);
    harness.runtime("B");
    expect(await finished).toMatchObject({ status: "completed", text: "done" });
    expect(read.calls()).toBe(2);
    expect(await harness.tool(session.id, "call_1")).toMatchObject({
      state: "completed",
      output: { path: "notes.txt", content: "remember the milk" },
    });
    await harness.shutdown();
  });
});
