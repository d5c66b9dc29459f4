import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ParleyClient, SessionMutation } from "@parley/sdk";
import { isToolState, MutationRecorder } from "@parley/session-core/testing";
import { expect } from "vitest";
import type {
  ChatCompletionsStub,
  StubReply,
  StubRequest,
} from "../../models/testing/chat-completions-stub.js";

/** The input the stub's `ask_question` call streams (in two pieces). */
const ASK_INPUT = JSON.stringify({
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

/**
 * The stub's script for the two API flows, chosen by the conversation it receives: "delete notes.txt"
 * gets a streamed `delete_file` call, anything else a streamed `ask_question` call; once the last
 * message is a tool result, a closing text.
 */
export function replyForApiFlows(request: StubRequest): StubReply {
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
            argument_chunks: [ASK_INPUT.slice(0, 30), ASK_INPUT.slice(30)],
          },
        ],
      };
}

/**
 * The tool message a request ends with, its content parsed: a Postgres store keeps outputs as jsonb,
 * which does not keep key order, so the JSON text may differ while the value is the same.
 */
function toolResultOf(request: StubRequest | undefined): {
  tool_call_id: string | undefined;
  result: unknown;
} {
  const last = request?.body.messages.at(-1);
  if (last?.role !== "tool" || typeof last.content !== "string") {
    throw new Error(`expected the request to end with a tool result, got ${JSON.stringify(last)}`);
  }
  return { tool_call_id: last.tool_call_id, result: JSON.parse(last.content) };
}

function turnFinished(turn_id: string) {
  return (mutation: SessionMutation) =>
    mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id;
}

/**
 * Through the API: the stub's `delete_file` call waits for approval, runs after it, and the stub gets
 * the tool result in the Turn's second request. `project_root` is the `project` workspace holding notes.txt.
 */
export async function expectApprovalFlowThroughApi(
  client: ParleyClient,
  stub: ChatCompletionsStub,
  project_root: string,
): Promise<void> {
  const session = await client.sessions.create({ title: "stub approval", workspace_id: "project" });
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
  expect(await readFile(path.join(project_root, "notes.txt"), "utf8")).toBe("remember the milk");

  await session.respond({
    interaction_id: request?.interaction_id ?? "",
    response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
  });
  const finish = await feed.waitFor(turnFinished(turn_id));
  feed.stop();
  expect(finish).toMatchObject({ status: "completed", text: "notes.txt is gone." });
  expect(await readFile(path.join(project_root, "notes.txt")).catch(() => "deleted")).toBe("deleted");

  const turnRequests = stub.requests.filter((received) =>
    received.body.messages.some(
      (message) => message.role === "user" && message.content === "delete notes.txt",
    ),
  );
  expect(turnRequests).toHaveLength(2);
  expect(toolResultOf(turnRequests[1])).toEqual({
    tool_call_id: "call_api_delete",
    result: { success: true, deleted: "notes.txt" },
  });
}

/** Through the API: the stub's `ask_question` call becomes a question; the answer reaches the stub. */
export async function expectQuestionFlowThroughApi(
  client: ParleyClient,
  stub: ChatCompletionsStub,
): Promise<void> {
  const session = await client.sessions.create({ title: "stub question", workspace_id: "project" });
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
    response: { type: "question", outcome: "resolved", payload: { answers: [{ question_id, value: "us" }] } },
  });
  const finish = await feed.waitFor(turnFinished(turn_id));
  feed.stop();
  expect(finish).toMatchObject({ status: "completed", text: "Deploying to the US." });
  expect(toolResultOf(stub.requests.at(-1))).toEqual({
    tool_call_id: "call_api_ask",
    result: { status: "resolved", answers: [{ question_id, value: "us" }] },
  });
}
