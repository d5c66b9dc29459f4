import type { InteractionRequest, InteractionResponse, ParleySession } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/index.js";

const DENY: InteractionResponse = { type: "approval", outcome: "denied", payload: { decision: "denied" } };

/**
 * "Allow <tool> for this session" through a real API process on Postgres
 * (docs/behaviour.md#allow-for-this-session): the demo model's `run …` asks the `shell` tool.
 */
describe("allow shell for this session, scoped by a command prefix", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await environment?.close();
  });

  /** Runs `query`; every approval asked is recorded and answered with `answer`. */
  async function run(session: ParleySession, query: string, answer: InteractionResponse = DENY) {
    const asked: InteractionRequest[] = [];
    const outcome = await session.run(query, {
      onInteraction: (request) => {
        asked.push(request);
        return answer;
      },
    });
    return { status: outcome.status, asked: asked.map((request) => request.payload) };
  }

  it("one approval with an edited prefix allows only commands starting with it; shown in status; revoked by set", async () => {
    const session = await alice.client().sessions.create({ title: "allowances" });
    const allowOnce = await run(session, "run echo one two", {
      type: "approval",
      outcome: "resolved",
      payload: { decision: "approved", scope: "session", allow: { command_prefix: "echo  one" } },
    });
    expect(allowOnce).toMatchObject({
      status: "completed",
      asked: [{ operation: "exec", command: "echo one two" }],
    });
    const shell = { tool_name: "shell", command_prefix: "echo one" };
    expect((await session.status()).security).toEqual({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [shell],
      effective_tool_allowances: [shell],
    });
    expect(await session.info()).toMatchObject({
      tool_allowances: [shell],
      effective_tool_allowances: [shell],
    });
    const answered = (await session.messages()).items.flatMap((message) =>
      message.type === "assistant"
        ? message.parts.flatMap((part) => (part.type === "tool" ? (part.interactions ?? []) : []))
        : [],
    );
    expect(answered).toMatchObject([
      {
        status: "resolved",
        responded_by: alice.user_id,
        response: { payload: { allow: { command_prefix: "echo  one" } } },
      },
    ]);

    expect(await run(session, "run echo one three")).toEqual({ status: "completed", asked: [] });
    expect(await run(session, "run echo one && echo two")).toMatchObject({
      status: "completed",
      asked: [{ command: "echo one && echo two" }],
    });
    expect(await run(session, "run echo two")).toMatchObject({
      status: "completed",
      asked: [{ command: "echo two" }],
    });

    expect(await session.set({ security: { tool_allowances: [] } })).toEqual({ queued: true });
    expect((await session.status()).security).toMatchObject({
      tool_allowances: [],
      effective_tool_allowances: [shell],
    });
    expect(await run(session, "run echo one four")).toMatchObject({
      status: "completed",
      asked: [{ command: "echo one four" }],
    });
    expect((await session.status()).security).toMatchObject({
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const actions = (await session.messages()).items.flatMap((message) =>
      message.type === "action" ? [message.description] : [],
    );
    expect(actions).toEqual(['security.tool_allowances: shell "echo one"', "security.tool_allowances: none"]);
  });

  it("a session scope without a prefix for shell is interaction_invalid_response and leaves it pending", async () => {
    const session = await alice.client().sessions.create({ title: "no prefix" });
    const refusals: unknown[] = [];
    const outcome = await session.run("run echo hi", {
      onInteraction: async (request) => {
        await session
          .respond({
            interaction_id: request.interaction_id,
            response: {
              type: "approval",
              outcome: "resolved",
              payload: { decision: "approved", scope: "session" },
            },
          })
          .catch((error: unknown) => refusals.push(error));
        return DENY;
      },
    });
    expect(outcome.status).toBe("completed");
    expect(refusals).toMatchObject([{ code: "interaction_invalid_response" }]);
    expect((await session.status()).security.tool_allowances).toEqual([]);
  });
});
