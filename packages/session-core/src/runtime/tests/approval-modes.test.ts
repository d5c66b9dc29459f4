import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { actionMutations, actions, codeAndMessage } from "./config-assertions.js";
import { createApprovalTool } from "./tools.js";

const ALWAYS = { security: { approval_mode: "always-allow" as const } };
const ASK = { security: { approval_mode: "ask" as const } };

describe("approval modes, status and set", () => {
  it("G55: a change while running stays queued past a Turn with no further Step and applies before the next prompt", async () => {
    const model = createScriptedModel([[{ block: "first" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const first = await session.prompt({ query: "first" });
    await model.reached("first");
    expect(await session.set(ALWAYS)).toEqual({ queued: true });
    expect(await session.status()).toEqual({
      session_id: session.id,
      state: "running",
      active_turn_id: first.id,
      model_id: null,
      effective_model_id: null,
      security: {
        approval_mode: "always-allow",
        effective_approval_mode: "ask",
        tool_allowances: [],
        effective_tool_allowances: [],
      },
    });
    const reopened = await harness.runtime().openSession(session.id);
    expect((await reopened?.status())?.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    model.release("first");
    await first.finished;
    expect(await session.status()).toEqual({
      session_id: session.id,
      state: "idle",
      model_id: null,
      effective_model_id: null,
      security: {
        approval_mode: "always-allow",
        effective_approval_mode: "ask",
        tool_allowances: [],
        effective_tool_allowances: [],
      },
    });
    const second = await session.prompt({ query: "second" });
    await second.finished;
    expect((await session.status()).security.effective_approval_mode).toBe("always-allow");
    expect(await actions(harness, session.id)).toMatchObject([
      {
        status: "completed",
        title: "Session configuration updated",
        description: "security.approval_mode: always-allow",
        turn_id: second.id,
      },
    ]);
    const order = (await harness.messages(session.id)).map((message) => message.type);
    expect(order).toEqual(["user", "assistant", "action", "user", "assistant"]);
  });

  it("G56 (approval-mode half): a change plus a steer apply at the next Step of the same Turn", async () => {
    const model = createScriptedModel([[{ block: "call-1" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const first = await session.prompt({ query: "first" });
    await model.reached("call-1");
    await session.set(ALWAYS);
    const steer = session.prompt({ query: "and also" });
    model.release("call-1");
    expect((await steer).id).toBe(first.id);
    expect(await first.finished).toMatchObject({ success: true, text: "two" });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]?.last_user_text).toBe("and also");
    expect(await actions(harness, session.id)).toMatchObject([
      { description: "security.approval_mode: always-allow" },
    ]);
    expect(actionMutations(harness.mutations(session.id))).toHaveLength(1);
    const config = harness
      .mutations(session.id)
      .filter((mutation) => mutation.variant === "session" && mutation.type === "config");
    expect(config.at(-1)).toMatchObject({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
  });

  it("G57: the current Step keeps its captured mode; a later Step of the same Turn uses the new one", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ block: "step-1" }, { tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ tool_call: { id: "call_b", name: "delete_file", input: { path: "b" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    await model.reached("step-1");
    await session.set(ALWAYS);
    model.release("step-1");
    const interaction_id = await harness.pendingInteraction("call_a");
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    expect(approval.decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: interaction_id, input: { path: "a" } },
      { approved: true, auto_approved: true, input: { path: "b" } },
    ]);
    expect(approval.effects).toEqual(["a", "b"]);
  });

  it("G58: switching to always-allow does not answer an Interaction already pending", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ text: "done" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call_a");
    await session.set(ALWAYS);
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);
    expect(approval.effects).toEqual([]);
    await session.respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    await turn.finished;
    expect(approval.decisions).toEqual([
      { approved: true, auto_approved: false, approval_id: interaction_id, input: { path: "a" } },
    ]);
  });

  it("G59 (approval-mode half): persist_action / publish_mutation control the Action and its mutation", async () => {
    const model = createScriptedModel(() => [{ text: "ok" }]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await session.set(ALWAYS, { persist_action: false, publish_mutation: false });
    await (await session.prompt({ query: "1" })).finished;
    expect(await actions(harness, session.id)).toEqual([]);
    await session.set(ASK, { publish_mutation: false });
    await (await session.prompt({ query: "2" })).finished;
    expect(await actions(harness, session.id)).toHaveLength(1);
    expect(actionMutations(harness.mutations(session.id))).toEqual([]);
    expect(await session.set(ASK)).toEqual({ queued: false });
    await (await session.prompt({ query: "3" })).finished;
    expect(await actions(harness, session.id)).toHaveLength(1);
    expect(
      await codeAndMessage(session.set(ALWAYS, { persist_action: false, publish_mutation: true })),
    ).toEqual(["invalid_input", "session.set publish_mutation requires persist_action"]);
  });

  it("G60: invalid set input is refused and changes nothing", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    expect(await codeAndMessage(session.set({}))).toEqual([
      "invalid_input",
      "session.set requires model or security",
    ]);
    expect(await codeAndMessage(session.set({ security: { approval_mode: "never" } } as never))).toEqual([
      "invalid_input",
      "security.approval_mode must be ask or always-allow",
    ]);
    expect((await session.status()).security).toEqual({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect(harness.events).toEqual([]);
  });

  it("G61: setting the configured value again queues nothing and publishes nothing", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    const before = await session.status();
    expect(await session.set(ASK)).toEqual({ queued: false });
    expect(await session.status()).toEqual(before);
    expect(harness.events).toEqual([]);
  });

  it("G62: two changes in one Step apply in order, each with its Action", async () => {
    const model = createScriptedModel([[{ block: "s1" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    await model.reached("s1");
    await session.set(ALWAYS);
    await session.set(ASK);
    const steer = session.prompt({ query: "more" });
    model.release("s1");
    await steer;
    await turn.finished;
    expect((await session.status()).security).toEqual({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect(
      (await actions(harness, session.id)).map((action) => action.type === "action" && action.description),
    ).toEqual(["security.approval_mode: always-allow", "security.approval_mode: ask"]);
  });

  it("G63: a restored session starts with effective = configured and re-setting it emits nothing", async () => {
    const model = createScriptedModel(() => [{ text: "ok" }]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    await session.set(ALWAYS);
    await (await session.prompt({ query: "1" })).finished;
    await harness.kill("A");
    const restored = await harness.runtime("B").openSession(session.id);
    expect((await restored?.status())?.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const before = harness.events.length;
    expect(await restored?.set(ALWAYS)).toEqual({ queued: false });
    await (await restored?.prompt({ query: "2" }))?.finished;
    expect(actionMutations(harness.events.slice(before).map((event) => event.mutation))).toEqual([]);
    expect(await actions(harness, session.id)).toHaveLength(1);
  });

  it("G63: a change queued by a process that died is still applied at the next Turn, with its Action", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_1", name: "delete_file", input: { path: "a" } } }],
      [{ text: "ok" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession({ process_id: "A" });
    await session.set(ALWAYS);
    await harness.kill("A");
    const before = harness.events.length;
    const restored = await harness.runtime("B").openSession(session.id);
    expect(harness.events.length).toBe(before);
    await (await restored?.prompt({ query: "go" }))?.finished;
    expect(approval.decisions).toEqual([{ approved: true, auto_approved: true, input: { path: "a" } }]);
    expect((await restored?.status())?.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect(await actions(harness, session.id)).toMatchObject([
      { description: "security.approval_mode: always-allow" },
    ]);
  });

  it("opening a session for reads writes nothing, and every process reports the stored modes", async () => {
    const model = createScriptedModel([[{ block: "s1" }, { text: "one" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "go" });
    await model.reached("s1");
    await session.set(ALWAYS);
    const before = harness.events.length;
    const remote = await harness.runtime("B").openSession(session.id);
    expect((await remote?.status())?.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    expect(harness.events.length).toBe(before);
    model.release("s1");
    await turn.finished;
  });

  it("G64: a silent change while running still becomes effective at the next checkpoint", async () => {
    const model = createScriptedModel([[{ block: "s1" }, { text: "one" }], [{ text: "two" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    await model.reached("s1");
    await session.set(ALWAYS, { persist_action: false, publish_mutation: false });
    const steer = session.prompt({ query: "more" });
    model.release("s1");
    await steer;
    await turn.finished;
    expect((await session.status()).security.effective_approval_mode).toBe("always-allow");
    expect(await actions(harness, session.id)).toEqual([]);
    // No configuration mutation; the steer's `queue` notice (a prompt joined the Turn) is not one.
    const configMutations = harness
      .mutations(session.id)
      .filter((mutation) => mutation.variant === "session" && mutation.type !== "queue");
    expect(configMutations).toEqual([]);
  });

  it("G65: when the Action cannot be persisted the change is still effective and nothing fails", async () => {
    const model = createScriptedModel(() => [{ text: "ok" }]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await session.set(ALWAYS);
    harness.faults.failNextCommit(
      new Error("action write failed"),
      (commit) => commit.message?.snapshot.type === "action",
    );
    const turn = await session.prompt({ query: "go" });
    expect(await turn.finished).toMatchObject({ success: true });
    expect((await session.status()).security.effective_approval_mode).toBe("always-allow");
    expect(await actions(harness, session.id)).toEqual([]);
  });

  it("G66 (facade half): options that are not booleans are invalid_input", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    expect((await codeAndMessage(session.set(ALWAYS, { persist_action: "no" } as never)))[0]).toBe(
      "invalid_input",
    );
    expect(await session.set(ALWAYS, { persist_action: true, publish_mutation: true })).toEqual({
      queued: true,
    });
  });
});
