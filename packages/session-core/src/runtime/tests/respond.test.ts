import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ParleyError } from "../../errors.js";
import { SESSION_APPROVAL_RESPONSE_SCHEMA } from "../../schema/approval.js";
import type { JsonValue } from "../../schema/json.js";
import type { SessionMutation } from "../../schema/mutation.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { define_agent_tool } from "../../tools/define-agent-tool.js";
import { approval, pendingApproval, pendingQuestion } from "./respond-fixtures.js";
import { createApprovalTool, createRequestTool } from "./tools.js";

describe("respond()", () => {
  it("G9, G31: an approved shell approval runs the command (output approval-ok) and the Turn succeeds", async () => {
    const commands: string[] = [];
    const shell = define_agent_tool({
      description: "Run a command.",
      input_schema: z.object({ command: z.string() }),
      async execute({ command }, context): Promise<JsonValue> {
        const decision = await context.interactions.approval.request({
          turn_id: context.turn_id,
          tool_call_id: context.tool_call_id,
          tool_name: "shell",
          source_type: "shell",
          payload: { operation: "exec", command, cwd: "/workspace" },
        });
        if (!decision.approved) return "denied";
        commands.push(command);
        return "approval-ok";
      },
    });
    const model = createScriptedModel([
      [{ tool_call: { id: "call_host", name: "shell", input: { command: "ls" } } }],
      [{ text: "listed" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { shell } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "list" });
    const interaction_id = await harness.pendingInteraction("call_host");
    const [request] = await session.interactions();
    expect(request?.turn_id).toBe(turn.id);
    expect(request?.source).toEqual({ type: "shell", tool_call_id: "call_host", tool_name: "shell" });
    const response = approval("approved");
    expect(await session.respond({ interaction_id, response })).toEqual({
      status: "resolved",
      interaction_id,
      response,
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "listed" });
    expect(commands).toEqual(["ls"]);
    expect((await harness.tool(session.id, "call_host")).output).toBe("approval-ok");
  });

  it("G10: a resolved answer makes the tool running and the Interaction resolved in one revision", async () => {
    const { harness, session, interaction_id, turn } = await pendingApproval();
    await session.respond({ interaction_id, response: approval("approved") }, { user_id: "user:alice" });
    await turn.finished;
    const answered = harness
      .mutations(session.id)
      .find(
        (mutation): mutation is Extract<SessionMutation, { variant: "part" }> =>
          mutation.variant === "part" &&
          mutation.part.type === "tool" &&
          mutation.part.interactions?.[0]?.status === "resolved",
      );
    expect(answered?.part).toMatchObject({
      state: "running",
      interactions: [{ status: "resolved", response: approval("approved"), responded_by: "user:alice" }],
    });
    expect(answered?.part.type === "tool" && typeof answered.part.interactions?.[0]?.resolved_at).toBe(
      "number",
    );
    expect(await session.interactions()).toEqual([]);
  });

  it("answers from an Interaction its caller already read (RespondPrefetch) without reading it again", async () => {
    const { harness, session, interaction_id, turn } = await pendingApproval();
    const interaction = (await harness.store.getAnswerContext(session.id, interaction_id))?.interaction;
    let reads = 0;
    const getAnswerContext = harness.store.getAnswerContext.bind(harness.store);
    harness.store.getAnswerContext = (session_id, id) => {
      reads += 1;
      return getAnswerContext(session_id, id);
    };
    await session.respond({ interaction_id, response: approval("approved") }, undefined, { interaction });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(reads).toBe(0);
  });

  it("refuses an Interaction prefetched for another id, and commits nothing", async () => {
    const { harness, session, interaction_id } = await pendingApproval();
    const found = (await harness.store.getAnswerContext(session.id, interaction_id))?.interaction;
    const other = found && {
      ...found,
      record: {
        ...found.record,
        interaction: { ...found.record.interaction, interaction_id: "interaction:other" },
      },
    };
    await expect(
      session.respond({ interaction_id, response: approval("approved") }, undefined, { interaction: other }),
    ).rejects.toThrow(`Prefetched Interaction interaction:other is not ${interaction_id}`);
    expect((await harness.store.getInteraction(interaction_id))?.interaction.status).toBe("pending");
  });

  it("G11: a denied question fails the tool with Interaction denied", async () => {
    const { harness, session, interaction_id, turn } = await pendingQuestion();
    const result = await session.respond({
      interaction_id,
      response: { type: "question", outcome: "denied", payload: {} },
    });
    expect(result).toEqual({ status: "denied", interaction_id });
    await turn.finished;
    const tool = await harness.tool(session.id, "call_q");
    expect(tool).toMatchObject({
      state: "failed",
      error: "Interaction denied",
      interactions: [{ status: "denied" }],
    });
  });

  it("G16: of two concurrent responders exactly one wins and the waiter settles once", async () => {
    const { harness, session, interaction_id, turn, decisions } = await pendingApproval();
    const outcomes = await Promise.allSettled([
      session.respond({ interaction_id, response: approval("approved") }),
      session.respond({ interaction_id, response: approval("denied") }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected"]);
    await turn.finished;
    expect(decisions).toHaveLength(1);
    const leaving = harness
      .mutations(session.id)
      .filter(
        (mutation) =>
          mutation.variant === "part" &&
          mutation.part.type === "tool" &&
          mutation.part.interactions?.[0]?.status !== "pending" &&
          mutation.part.interactions?.length,
      );
    expect(leaving[0]).toMatchObject({ part: { state: "running" } });
  });

  it("G20: the running mutation is published before the tool continues, and respond resolves after the commit", async () => {
    const order: string[] = [];
    const tool = define_agent_tool({
      description: "Approval then effect.",
      input_schema: z.object({}),
      async execute(_input, context) {
        await context.interactions.approval.request({
          turn_id: context.turn_id,
          tool_call_id: context.tool_call_id,
          payload: { operation: "tool" },
        });
        order.push("tool continued");
        return null;
      },
    });
    const model = createScriptedModel([[{ tool_call: { id: "call_20", name: "gated" } }], [{ text: "ok" }]]);
    const harness = new RuntimeHarness({ model, tools: { gated: tool } });
    const session = await harness.createSession();
    session.subscribe((mutation) => {
      if (mutation.variant === "part" && mutation.part.type === "tool" && mutation.part.state === "running") {
        order.push("running published");
      }
    });
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_20");
    const responded = session.respond({ interaction_id, response: approval("approved") }).then(() => {
      order.push("respond resolved");
    });
    await responded;
    await turn.finished;
    expect(order.indexOf("running published")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("running published")).toBeLessThan(order.indexOf("tool continued"));
    expect((await harness.store.getInteraction(interaction_id))?.interaction.status).toBe("resolved");
  });

  it("G22: interactions() lists bare requests; approvals carry the shared response_schema, questions none", async () => {
    const approvalTool = createApprovalTool();
    const asker = createRequestTool((context) => ({
      type: "question",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      payload: { questions: [] },
    }));
    const model = createScriptedModel([
      [
        { tool_call: { id: "call_a", name: "delete_file", input: { path: "x" } } },
        { tool_call: { id: "call_q", name: "asker" } },
      ],
    ]);
    const harness = new RuntimeHarness({
      model,
      tools: { delete_file: approvalTool.tool, asker: asker.tool },
    });
    const session = await harness.createSession();
    await session.prompt({ query: "go" });
    await harness.pendingInteraction("call_a");
    await harness.pendingInteraction("call_q");
    const requests = await session.interactions();
    expect(requests.map((request) => request.type).sort()).toEqual(["approval", "question"]);
    const approvalRequest = requests.find((request) => request.type === "approval");
    const questionRequest = requests.find((request) => request.type === "question");
    expect(approvalRequest?.response_schema).toEqual(SESSION_APPROVAL_RESPONSE_SCHEMA);
    expect(questionRequest && "response_schema" in questionRequest).toBe(false);
    expect(approvalRequest && "request" in approvalRequest).toBe(false);
  });

  it("G23: a custom interaction type's payload passes through untouched", async () => {
    const asker = createRequestTool((context) => ({
      type: "plugin:deploy/confirm",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      payload: { env: "prod" },
    }));
    const model = createScriptedModel([
      [{ tool_call: { id: "call_c", name: "asker" } }],
      [{ text: "deployed" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "deploy" });
    const interaction_id = await harness.pendingInteraction("call_c");
    const response = {
      type: "plugin:deploy/confirm",
      outcome: "resolved" as const,
      payload: { ok: true, nested: [1, "x"] },
    };
    await session.respond({ interaction_id, response });
    await turn.finished;
    expect(asker.results).toEqual([{ status: "resolved", interaction_id, response }]);
  });

  it("G24: handle.result resolves exactly once for resolved, denied and cancelled alike", async () => {
    const results: unknown[] = [];
    for (const end of ["resolved", "denied", "cancelled"] as const) {
      const { session, interaction_id, asker, turn } = await pendingQuestion();
      if (end === "cancelled") await session.stop();
      else {
        await session.respond({
          interaction_id,
          response: {
            type: "question",
            outcome: end,
            payload: end === "resolved" ? { answers: [{ question_id: "question:q1", value: "here" }] } : {},
          },
        });
      }
      await turn.finished;
      expect(asker.results).toHaveLength(1);
      results.push(asker.results[0]?.status);
    }
    expect(results).toEqual(["resolved", "denied", "cancelled"]);
  });

  it("50 concurrent responds: exactly one succeeds, 49 are interaction_not_pending, one tool mutation leaves waiting-user", async () => {
    const { harness, session, interaction_id, turn, effects } = await pendingApproval();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        session.respond({ interaction_id, response: approval(index % 2 === 0 ? "approved" : "denied") }),
      ),
    );
    const fulfilled = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const codes = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [(outcome.reason as ParleyError).code] : [],
    );
    expect(fulfilled).toHaveLength(1);
    expect(codes).toEqual(Array.from({ length: 49 }, () => "interaction_not_pending"));
    await turn.finished;
    expect(effects).toEqual(["a.txt"]);
    // The durable states of the tool (its whole message at the Interaction's creation, its part
    // after): it leaves `waiting-user` exactly once.
    expect(harness.toolStates(session.id, "call_1")).toEqual(["waiting-user", "running", "completed"]);
  });

  it("50 concurrent responds across two processes: still exactly one wins", async () => {
    const { harness, session, interaction_id, turn, effects } = await pendingApproval();
    const remote = await harness.runtime("B").openSession(session.id);
    if (!remote) throw new Error("session not found in B");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        (index % 2 === 0 ? session : remote).respond({ interaction_id, response: approval("approved") }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect(
      outcomes.filter(
        (outcome) =>
          outcome.status === "rejected" && (outcome.reason as ParleyError).code === "interaction_not_pending",
      ),
    ).toHaveLength(49);
    expect(await turn.finished).toMatchObject({ success: true });
    expect(effects).toEqual(["a.txt"]);
  });

  it("a process that answered once answers the next Interaction of the same message too (its copy is refreshed)", async () => {
    const approvalTool = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ tool_call: { id: "call_2", name: "delete_file", input: { path: "b" } } }],
      [{ text: "both" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approvalTool.tool } });
    const session = await harness.createSession({ process_id: "A" });
    const remote = await harness.runtime("B").openSession(session.id);
    const turn = await session.prompt({ query: "delete" });
    const first = await harness.pendingInteraction("call_1");
    await remote?.respond({ interaction_id: first, response: approval("approved") });
    const second = await harness.pendingInteraction("call_2");
    expect(await remote?.respond({ interaction_id: second, response: approval("approved") })).toMatchObject({
      status: "resolved",
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "both" });
    expect(approvalTool.effects).toEqual(["a", "b"]);
  });
});
