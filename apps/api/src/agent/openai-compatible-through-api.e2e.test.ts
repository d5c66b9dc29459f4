import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SessionMutation } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatCompletionsStub,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import { type E2eEnvironment, isToolState, MutationRecorder, startE2eEnvironment } from "../testing/index.js";

/**
 * The end-to-end proof: a real API process configured with
 * `PARLEY_MODEL=openai-compatible:stub-model` talks HTTP to a chat-completions stub started here; the
 * SDK drives an approval flow and a question flow, and the stub receives the tool results in the
 * second request of the same Turn.
 */
describe("openai-compatible model through the API (real process, SDK client)", () => {
  let stub: ChatCompletionsStub;
  let environment: E2eEnvironment;
  let workspace: string;

  const askInput = JSON.stringify({
    title: "Deployment",
    questions: [
      {
        question: "Which region?",
        type: "single_select",
        options: [
          { value: "cn", label: "China" },
          { value: "us", label: "United States" },
        ],
      },
    ],
  });

  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), "parley-stub-ws-")));
    await writeFile(path.join(workspace, "notes.txt"), "remember the milk");
    stub = await startChatCompletionsStub((request) => {
      const lastUser = [...request.body.messages].reverse().find((message) => message.role === "user");
      const answered = request.body.messages.at(-1)?.role === "tool";
      if (lastUser?.content === "delete notes.txt") {
        return answered
          ? { text_chunks: ["notes.txt ", "is gone."] }
          : {
              text_chunks: ["Deleting ", "notes.txt."],
              tool_calls: [
                { id: "call_api_delete", name: "delete_file", argument_chunks: ['{"path"', ':"notes.txt"}'] },
              ],
            };
      }
      return answered
        ? { text_chunks: ["Deploying ", "to the US."] }
        : {
            tool_calls: [
              {
                id: "call_api_ask",
                name: "ask_question",
                argument_chunks: [askInput.slice(0, 30), askInput.slice(30)],
              },
            ],
          };
    });
    environment = await startE2eEnvironment({
      env: {
        PARLEY_MODEL: "openai-compatible:stub-model",
        OPENAI_BASE_URL: stub.base_url,
        PARLEY_WORKSPACES: `project=${workspace}`,
      },
    });
  });

  afterAll(async () => {
    await environment?.close();
    await stub?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  function turnFinished(turn_id: string) {
    return (mutation: SessionMutation) =>
      mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id;
  }

  it("approval flow: the stub's streamed delete_file call waits for approval, runs, and its result goes back to the stub", async () => {
    const session = await environment.admin
      .client()
      .sessions.create({ title: "stub", workspace_id: "project" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("delete notes.txt");
    await feed.waitFor(isToolState("waiting-user"));
    const [request] = await session.interactions();
    expect(request).toMatchObject({
      turn_id,
      type: "approval",
      source: { type: "tool", tool_call_id: "call_api_delete", tool_name: "delete_file" },
      payload: { operation: "tool", validated_input: { path: "notes.txt" } },
    });
    expect(await readFile(path.join(workspace, "notes.txt"), "utf8")).toBe("remember the milk");

    await session.respond({
      interaction_id: request?.interaction_id ?? "",
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const finish = await feed.waitFor(turnFinished(turn_id));
    feed.stop();
    expect(finish).toMatchObject({ status: "completed", text: "notes.txt is gone." });
    expect(await readFile(path.join(workspace, "notes.txt")).catch(() => "deleted")).toBe("deleted");

    const deleteRequests = stub.requests.filter((received) =>
      received.body.messages.some(
        (message) => message.role === "user" && message.content === "delete notes.txt",
      ),
    );
    expect(deleteRequests).toHaveLength(2);
    expect(deleteRequests[1]?.body.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_api_delete",
      content: '{"success":true,"deleted":"notes.txt"}',
    });
  });

  it("question flow: the stub's ask_question call becomes a question, the answer goes back to the stub", async () => {
    const session = await environment.admin
      .client()
      .sessions.create({ title: "ask", workspace_id: "project" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("deploy it");
    await feed.waitFor(isToolState("waiting-user"));
    const [request] = await session.interactions();
    if (request?.type !== "question") throw new Error(`expected a question, got ${JSON.stringify(request)}`);
    expect(request.source).toEqual({ type: "tool", tool_call_id: "call_api_ask", tool_name: "ask_question" });
    const question_id = (request.payload as { questions: Array<{ question_id: string }> }).questions[0]
      ?.question_id;
    if (question_id === undefined) throw new Error("expected one question");
    await session.respond({
      interaction_id: request.interaction_id,
      response: {
        type: "question",
        outcome: "resolved",
        payload: { answers: [{ question_id, value: "us" }] },
      },
    });
    const finish = await feed.waitFor(turnFinished(turn_id));
    feed.stop();
    expect(finish).toMatchObject({ status: "completed", text: "Deploying to the US." });
    const last = stub.requests.at(-1);
    expect(last?.body.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_api_ask",
      content: JSON.stringify({ status: "resolved", answers: [{ question_id, value: "us" }] }),
    });
  });
});
