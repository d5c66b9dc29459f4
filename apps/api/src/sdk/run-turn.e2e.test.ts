import { readFile } from "node:fs/promises";
import path from "node:path";
import { type InteractionRequest, type InteractionResponse, ParleyError } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CuttableProxy,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  MutationRecorder,
  startCuttableProxy,
  startE2eEnvironment,
} from "../testing/index.js";

const APPROVE: InteractionResponse = {
  type: "approval",
  outcome: "resolved",
  payload: { decision: "approved" },
};

/** Answers every question of a demo deployment form with its first option (or a fixed text). */
function answerQuestions(request: InteractionRequest): InteractionResponse {
  const questions = (
    request.payload as { questions: { question_id: string; type: string; options?: { value: string }[] }[] }
  ).questions;
  return {
    type: "question",
    outcome: "resolved",
    payload: {
      answers: questions.map((question) => ({
        question_id: question.question_id,
        value:
          question.type === "text"
            ? "nothing else"
            : question.type === "multi_select"
              ? [question.options?.[0]?.value ?? ""]
              : (question.options?.[0]?.value ?? ""),
      })),
    },
  };
}

describe("session.run and session.waitForTurn", () => {
  let environment: E2eEnvironment;
  let proxy: CuttableProxy;
  let dana: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    proxy = await startCuttableProxy(environment.api.url);
    dana = await environment.createMember("dana");
  });

  afterAll(async () => {
    await proxy?.close();
    await environment?.close();
  });

  it("run through an approval: onInteraction's answer is sent and the Turn's finish resolves run", async () => {
    const session = await dana.client().sessions.create({ title: "run approval" });
    const seen: InteractionRequest[] = [];
    const outcome = await session.run("write notes.txt: hello", {
      onInteraction: (interaction) => {
        seen.push(interaction);
        return APPROVE;
      },
    });

    expect(outcome).toEqual({
      turn_id: expect.any(String),
      status: "completed",
      text: "Done: I wrote 5 bytes to notes.txt (a new file).",
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      turn_id: outcome.turn_id,
      type: "approval",
      source: { tool_name: "write_file" },
      payload: { operation: "tool", validated_input: { path: "notes.txt", content: "hello" } },
    });
    expect(await readFile(path.join(environment.api.workspace_root, session.id, "notes.txt"), "utf8")).toBe(
      "hello",
    );
    expect(await session.interactions()).toEqual([]);
  });

  it("run through a question: every answer reaches the tool and the Turn completes", async () => {
    const session = await dana.client().sessions.create({ title: "run question" });
    const types: string[] = [];
    const outcome = await session.run("ask me where to deploy", {
      onInteraction: (interaction) => {
        types.push(interaction.type);
        return answerQuestions(interaction);
      },
    });
    expect(types).toEqual(["question"]);
    expect(outcome.status).toBe("completed");
    expect(outcome.text).toBe(
      [
        "Thanks! Your answers:",
        "- Which region should I deploy to? → Europe",
        "- Which checks should run before going live? → Unit and integration tests",
        "- Anything the deployment should take care of? → nothing else",
        "This is where a real model would go on with them.",
      ].join("\n"),
    );
    expect(outcome.error).toBeUndefined();
  });

  it("an answer the server refuses rejects run with a ParleyError, and the Interaction stays pending", async () => {
    const session = await dana.client().sessions.create({ title: "run refused" });
    const refused = session.run("delete notes.txt", {
      onInteraction: () => ({ type: "approval", outcome: "resolved", payload: { decision: "maybe" } }),
    });
    await expect(refused).rejects.toBeInstanceOf(ParleyError);
    await expect(refused).rejects.toMatchObject({ code: "interaction_invalid_response" });
    const pending = await session.interactions();
    expect(pending.map((request) => request.type)).toEqual(["approval"]);
    await session.stop();
  });

  it("a refused prompt rejects run with a ParleyError", async () => {
    const session = await dana.client().sessions.create({ title: "run closed" });
    expect(await session.close()).toEqual({ closed: true });
    await expect(session.run("write a.txt: x")).rejects.toMatchObject({ code: "session_closed" });
  });

  it("waitForTurn resolves at once for a Turn that finished earlier, with the same outcome", async () => {
    const session = await dana.client().sessions.create({ title: "wait finished" });
    const first = await session.run("list files");
    expect(first.status).toBe("completed");

    const later = dana.client().session(session.id);
    expect(await later.waitForTurn(first.turn_id)).toEqual(first);
  });

  it("waitForTurn survives a socket cut: the finish committed while it was away still resolves it", async () => {
    const direct = dana.client();
    const session = await direct.sessions.create({ title: "wait cut" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("write cut.txt: while away");
    await feed.waitFor(isToolState("waiting-user"));

    const throughProxy = environment.clientFor(dana, proxy.url).session(session.id);
    let settled = false;
    const waiting = throughProxy.waitForTurn(turn_id).finally(() => {
      settled = true;
    });
    await waitUntil(() => proxy.connectionCount() > 0);
    const [pending] = await session.interactions();
    const connectionsBeforeCut = proxy.connectionCount();

    proxy.cut();
    await session.respond({ interaction_id: pending?.interaction_id ?? "", response: APPROVE });
    const finish = await feed.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish",
    );
    expect(settled).toBe(false);
    proxy.restore();

    expect(await waiting).toEqual({
      turn_id,
      status: "completed",
      text: finish.variant === "turn" ? (finish.text ?? "") : "",
    });
    expect(proxy.connectionCount()).toBeGreaterThan(connectionsBeforeCut);
    feed.stop();
  });

  it("G73: an event stream dropped while a Turn is pending does not lose that Turn, and the next run resolves its own Turn", async () => {
    const direct = dana.client();
    const session = await direct.sessions.create({ title: "G73" });
    const remote = environment.clientFor(dana, proxy.url).session(session.id);
    const feed = new MutationRecorder(session, { after_event_id: 0 });

    // The remote service runs a Turn and leaves the approval to a person.
    const first = remote.run("write g73.txt: one");
    await feed.waitFor(isToolState("waiting-user"));
    const [pending] = await session.interactions();

    proxy.cut();
    await session.respond({ interaction_id: pending?.interaction_id ?? "", response: APPROVE });
    proxy.restore();

    const firstOutcome = await first;
    expect(firstOutcome).toMatchObject({
      status: "completed",
      text: "Done: I wrote 3 bytes to g73.txt (a new file).",
    });

    const second = await remote.run("read g73.txt");
    expect(second.turn_id).not.toBe(firstOutcome.turn_id);
    expect(second.status).toBe("completed");
    expect(second.text).toContain("one");
    feed.stop();
  });

  it("a stopped Turn resolves run with status stopped", async () => {
    const session = await dana.client().sessions.create({ title: "run stopped" });
    const running = session.run("delete notes.txt", {
      onInteraction: async () => {
        await session.stop();
        return undefined;
      },
    });
    expect(await running).toMatchObject({ status: "stopped" });
  });
});

/** Polls a condition that a background connection makes true (no fixed sleep). */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let attempt = 0; !condition(); attempt += 1) {
    if (attempt > 600) throw new Error("condition not met within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
