import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ParleyError } from "../../errors.js";
import type { JsonValue } from "../../schema/json.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

const approveWith = (interaction_id: string, payload: { [key: string]: JsonValue }) => ({
  interaction_id,
  response: {
    type: "approval",
    outcome: "resolved" as const,
    payload: { decision: "approved", ...payload },
  },
});

async function waitingApproval(process_id = "A") {
  const approval = createApprovalTool("delete_file");
  const model = createScriptedModel([
    [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "old.txt" } } }],
    [{ text: "done" }],
  ]);
  const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
  const session = await harness.createSession({ process_id });
  const turn = await session.prompt({ query: "delete" });
  const interaction_id = await harness.pendingInteraction("call_1");
  return { harness, model, session, turn, interaction_id, ...approval };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ParleyError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("edit before approve", () => {
  it("an approval with edited_input runs the tool with the edit and keeps request, edit and responder", async () => {
    const { harness, session, turn, interaction_id, effects, decisions, model } = await waitingApproval();
    const answer = approveWith(interaction_id, { edited_input: { path: "new.txt" } });
    expect(await session.respond(answer, { user_id: "user_ada" })).toEqual({
      status: "resolved",
      interaction_id,
      response: answer.response,
    });
    expect(await turn.finished).toEqual({ turn_id: turn.id, text: "done", success: true });
    expect(effects).toEqual(["new.txt"]);
    expect(decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: interaction_id, input: { path: "new.txt" } },
    ]);
    expect(model.calls[1]?.tool_results).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "delete_file",
        output: { type: "json", value: { deleted: "new.txt" } },
      },
    ]);
    const tool = await harness.tool(session.id, "call_1");
    expect(tool.state).toBe("completed");
    expect(tool.interactions).toHaveLength(1);
    expect(tool.interactions?.[0]).toMatchObject({
      status: "resolved",
      responded_by: "user_ada",
      request: { payload: { operation: "tool", validated_input: { path: "old.txt" } } },
      response: { payload: { decision: "approved", edited_input: { path: "new.txt" } } },
    });
    const stored = await harness.store.getInteraction(interaction_id);
    expect(stored?.interaction.response?.payload).toEqual({
      decision: "approved",
      edited_input: { path: "new.txt" },
    });
  });

  it("an edit that breaks the tool's input schema is refused and the Interaction stays pending", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingApproval();
    expect(
      await refusal(session.respond(approveWith(interaction_id, { edited_input: { path: "" } }))),
    ).toEqual({
      code: "interaction_invalid_response",
      message:
        "Session Interaction approval edited_input does not match delete_file's input: edited_input.path Too small: expected string to have >=1 characters",
    });
    expect(
      (await refusal(session.respond(approveWith(interaction_id, { edited_input: { path: "a", mode: 1 } }))))
        .code,
    ).toBe("interaction_invalid_response");
    expect(await refusal(session.respond(approveWith(interaction_id, { edited_input: "new.txt" })))).toEqual({
      code: "interaction_invalid_response",
      message: "Session Interaction approval edited_input must be an object",
    });
    expect(
      await refusal(
        session.respond({
          interaction_id,
          response: {
            type: "approval",
            outcome: "denied",
            payload: { decision: "denied", edited_input: { path: "new.txt" } },
          },
        }),
      ),
    ).toEqual({
      code: "interaction_invalid_response",
      message: "Session Interaction approval edited_input needs decision approved",
    });
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);
    expect((await harness.store.getInteraction(interaction_id))?.interaction.status).toBe("pending");
    expect((await harness.tool(session.id, "call_1")).state).toBe("waiting-user");
    expect(effects).toEqual([]);
    // Still answerable: a valid edit after the refused ones goes through.
    await session.respond(approveWith(interaction_id, { edited_input: { path: "fixed.txt" } }));
    expect(await turn.finished).toMatchObject({ success: true });
    expect(effects).toEqual(["fixed.txt"]);
  });

  it("an approval without validated_input cannot be edited", async () => {
    const approval = createApprovalTool("delete_file");
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "plain", input: {} } }],
      [{ text: "ok" }],
    ]);
    const plain = new RuntimeHarness({
      model,
      tools: {
        delete_file: approval.tool,
        plain: {
          description: "Asks without validated_input.",
          input_schema: z.object({}),
          async execute(_input, context) {
            const decision = await context.interactions.approval.request({
              turn_id: context.turn_id,
              tool_call_id: context.tool_call_id,
              tool_name: "delete_file",
              payload: { operation: "tool" },
            });
            return { approved: decision.approved };
          },
        },
      },
    });
    const other = await plain.createSession();
    await other.prompt({ query: "go" });
    const interaction_id = await plain.pendingInteraction("call_1");
    expect(
      await refusal(other.respond(approveWith(interaction_id, { edited_input: { path: "x" } }))),
    ).toEqual({
      code: "interaction_invalid_response",
      message: "Session Interaction approval has no validated_input to edit",
    });
    expect((await plain.store.getInteraction(interaction_id))?.interaction.status).toBe("pending");
  });

  it("resumed by replay: the re-run tool attaches to the stored answer and runs with the edit", async () => {
    const { harness, session, turn, interaction_id, effects, decisions } = await waitingApproval("A");
    await harness.kill("A");
    expect(await turn.finished).toMatchObject({ success: false });
    const b = harness.runtime("B");
    const opened = await b.openSession(session.id);
    const finished = harness.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn.id,
    );
    // B validates the edit from the stored request and the agent's tools, takes the lease and
    // re-runs the tool, which asks again with the model's original input and gets the edit back.
    await opened?.respond(approveWith(interaction_id, { edited_input: { path: "edited.txt" } }));
    expect(await finished).toMatchObject({ status: "completed", text: "done" });
    expect(effects).toEqual(["edited.txt"]);
    expect(decisions.at(-1)).toEqual({
      approved: true,
      auto_approved: false,
      approval_id: interaction_id,
      input: { path: "edited.txt" },
    });
    const tool = await harness.tool(session.id, "call_1");
    expect(tool).toMatchObject({ state: "completed", output: { deleted: "edited.txt" } });
    expect(tool.interactions).toHaveLength(1);
    expect((await harness.store.queryInteractions({ limit: 10 })).items).toHaveLength(1);
  });
});
