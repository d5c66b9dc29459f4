import { readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { DELETE_FILE_DESCRIPTION, WRITE_FILE_DESCRIPTION } from "@parley/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDemoModel } from "../models/demo-model.js";
import { DEMO_HELP_TEXT } from "../models/demo-replies.js";
import {
  type AgentTestRuntime,
  approvalResponse,
  nextPendingInteraction,
  startAgentTestRuntime,
  toolPartsOf,
} from "./testing/agent-test-runtime.js";

let harness: AgentTestRuntime;

beforeEach(async () => {
  harness = await startAgentTestRuntime(createDemoModel());
  await writeFile(path.join(harness.root, "notes.txt"), "remember the milk");
  await writeFile(path.join(harness.outside, "secret.txt"), "secret");
});

afterEach(async () => {
  await harness.dispose();
});

async function exists(file: string): Promise<boolean> {
  return readFile(file).then(
    () => true,
    () => false,
  );
}

describe("the demo model drives the default agent through the real runtime", () => {
  it("delete notes.txt, approved: one tool approval with the validated input, then the file is gone", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    expect(request).toMatchObject({
      turn_id: turn.id,
      type: "approval",
      source: { type: "tool", tool_call_id: "call_demo_1", tool_name: "delete_file" },
      payload: {
        operation: "tool",
        validated_input: { path: "notes.txt" },
        tool_description: DELETE_FILE_DESCRIPTION,
        model_explanation: "You asked me to delete notes.txt.",
      },
    });
    expect(await exists(path.join(harness.root, "notes.txt"))).toBe(true);

    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({ success: true, text: "Done: I deleted notes.txt." });
    expect(await exists(path.join(harness.root, "notes.txt"))).toBe(false);
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({
      state: "completed",
      tool_name: "delete_file",
      output: { success: true, deleted: "notes.txt" },
      interactions: [{ status: "resolved" }],
    });
  });

  it("delete notes.txt, denied: the file stays, the tool fails, the model says so", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("denied") });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "You denied the approval, so I did not delete notes.txt. Nothing was changed.",
    });
    expect(await readFile(path.join(harness.root, "notes.txt"), "utf8")).toBe("remember the milk");
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({
      state: "failed",
      error: "Interaction denied",
      interactions: [{ status: "denied" }],
    });
  });

  it("delete on a fresh, empty workspace still shows the approval, then reports the missing file", async () => {
    const session = await harness.createSession();
    await rm(path.join(harness.root, "notes.txt"));
    const turn = await session.prompt({ query: "delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "I could not delete notes.txt: File not found: notes.txt",
    });
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({ state: "failed", error: "File not found: notes.txt" });
  });

  it("write todo.md: buy milk, approved and then denied", async () => {
    const session = await harness.createSession();
    const first = await session.prompt({ query: "write todo.md: buy milk" });
    const request = await nextPendingInteraction(session, first);
    expect(request).toMatchObject({
      source: { type: "tool", tool_name: "write_file" },
      payload: {
        operation: "tool",
        validated_input: { path: "todo.md", content: "buy milk" },
        tool_description: WRITE_FILE_DESCRIPTION,
      },
    });
    expect(await exists(path.join(harness.root, "todo.md"))).toBe(false);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await first.finished).toMatchObject({
      success: true,
      text: "Done: I wrote 8 bytes to todo.md (a new file).",
    });
    expect(await readFile(path.join(harness.root, "todo.md"), "utf8")).toBe("buy milk");

    const second = await session.prompt({ query: "write todo.md: sell milk" });
    const secondRequest = await nextPendingInteraction(session, second);
    expect(secondRequest.source.tool_call_id).toBe("call_demo_2");
    await session.respond({
      interaction_id: secondRequest.interaction_id,
      response: approvalResponse("denied"),
    });
    expect(await second.finished).toMatchObject({
      success: true,
      text: "You denied the approval, so I did not write todo.md. Nothing was changed.",
    });
    expect(await readFile(path.join(harness.root, "todo.md"), "utf8")).toBe("buy milk");
  });

  it("ask me where to deploy: a question Interaction, the answers reach the model", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "ask me where to deploy" });
    const request = await nextPendingInteraction(session, turn);
    expect(request).toMatchObject({
      type: "question",
      source: { type: "tool", tool_name: "ask_question", tool_call_id: "call_demo_1" },
    });
    const questions = (request.payload as { questions: Array<{ question_id: string; type: string }> })
      .questions;
    expect(questions.map((question) => question.type)).toEqual(["single_select", "multi_select", "text"]);
    const [region, checks, notes] = questions;
    if (region === undefined || checks === undefined || notes === undefined)
      throw new Error("expected three questions");
    const answers = [
      { question_id: region.question_id, value: "eu" },
      { question_id: checks.question_id, value: ["tests", "smoke"] },
      { question_id: notes.question_id, value: "zero downtime" },
    ];
    await session.respond({
      interaction_id: request.interaction_id,
      response: { type: "question", outcome: "resolved", payload: { answers } },
    });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "Thanks! Your answers:\n- Which region should I deploy to? → Europe\n- Which checks should run before going live? → Unit and integration tests, Smoke test after deploy\n- Anything the deployment should take care of? → zero downtime\nThis is where a real model would go on with them.",
    });
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({ state: "completed", output: { status: "resolved", answers } });
  });

  it("run …, approval mode ask: a shell approval, then the command runs in the workspace", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "run echo hello > hello.txt && cat hello.txt" });
    const request = await nextPendingInteraction(session, turn);
    expect(request).toMatchObject({
      type: "approval",
      source: { type: "shell", tool_name: "shell", tool_call_id: "call_demo_1" },
      payload: {
        operation: "exec",
        command: "echo hello > hello.txt && cat hello.txt",
        cwd: ".",
        model_explanation: "You asked me to run this command.",
      },
    });
    expect(await exists(path.join(harness.root, "hello.txt"))).toBe(false);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "`echo hello > hello.txt && cat hello.txt` exited with code 0.\n\n```\nhello\n```",
    });
    expect(await readFile(path.join(harness.root, "hello.txt"), "utf8")).toBe("hello\n");
  });

  it("run …, approval mode ask, denied: the command never runs", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "run touch made.txt" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("denied") });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "You denied the approval, so I did not run `touch made.txt`. Nothing was changed.",
    });
    expect(await exists(path.join(harness.root, "made.txt"))).toBe(false);
  });

  it("ask me …, declined: the tool fails and the model says so", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "ask me where to deploy" });
    const request = await nextPendingInteraction(session, turn);
    await session.respond({
      interaction_id: request.interaction_id,
      response: { type: "question", outcome: "denied", payload: {} },
    });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "You declined the questions, so I'll leave it there for now.",
    });
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({ state: "failed", error: "Interaction denied" });
  });

  it("run …, approval mode always-allow: no Interaction at all, the command runs", async () => {
    const session = await harness.createSession({ approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "run ls" });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "`ls` exited with code 0.\n\n```\nnotes.txt\n```",
    });
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool?.state).toBe("completed");
    expect(tool?.interactions ?? []).toEqual([]);
    expect(await session.interactions()).toEqual([]);
  });

  it("stop() during a running shell command kills it and stops the Turn", async () => {
    const session = await harness.createSession({ approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "run echo started > shell.started; sleep 30" });
    await waitForLineIn(path.join(harness.root, "shell.started"));
    await session.stop();
    expect(await turn.finished).toMatchObject({ success: false, error: "Turn stopped" });
    await waitUntilNoProcessWorksIn(harness.root);
  });

  it("always-allow also lets delete_file through without an Interaction", async () => {
    const session = await harness.createSession({ approval_mode: "always-allow" });
    const turn = await session.prompt({ query: "delete notes.txt" });
    expect(await turn.finished).toMatchObject({ success: true, text: "Done: I deleted notes.txt." });
    expect(await exists(path.join(harness.root, "notes.txt"))).toBe(false);
  });

  it("an escaping path fails the tool with a clear error, asks nothing and touches nothing", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete ../outside/secret.txt" });
    expect(await turn.finished).toMatchObject({
      success: true,
      text: "I could not delete ../outside/secret.txt: Path escapes the workspace: ../outside/secret.txt",
    });
    const [tool] = await toolPartsOf(session, turn.id);
    expect(tool).toMatchObject({
      state: "failed",
      error: "Path escapes the workspace: ../outside/secret.txt",
    });
    expect(tool?.interactions ?? []).toEqual([]);
    expect(await readFile(path.join(harness.outside, "secret.txt"), "utf8")).toBe("secret");
  });

  it("list files and read notes.txt need no approval", async () => {
    const session = await harness.createSession();
    const list = await session.prompt({ query: "list files" });
    expect(await list.finished).toMatchObject({ success: true, text: "Files in .: notes.txt." });
    const read = await session.prompt({ query: "read notes.txt" });
    expect(await read.finished).toMatchObject({
      success: true,
      text: "Here is notes.txt:\n\n```\nremember the milk\n```",
    });
  });

  it("anything else gets the list of what the demo can do", async () => {
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "hello" });
    expect(await turn.finished).toMatchObject({ success: true, text: DEMO_HELP_TEXT });
    expect(await toolPartsOf(session, turn.id)).toEqual([]);
  });
});

async function waitForLineIn(file: string): Promise<void> {
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.endsWith("\n")) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Returns once no process works in `directory` (a killed orphan is reaped shortly after). Found by
 * working directory: the shell's own pid is that of its sandbox's PID namespace.
 */
async function waitUntilNoProcessWorksIn(directory: string): Promise<void> {
  for (;;) {
    const working = await Promise.all(
      (await readdir("/proc"))
        .filter((entry) => /^\d+$/.test(entry))
        .map((entry) => readlink(path.join("/proc", entry, "cwd")).catch(() => "")),
    );
    if (!working.some((cwd) => cwd === directory || cwd.startsWith(`${directory}/`))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
