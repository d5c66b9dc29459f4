import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel, type ScriptedCall } from "../../testing/scripted-model.js";
import type { AgentModel, AgentModels } from "../session/session-facade.js";
import { actionMutations, actions, codeAndMessage, configMutations } from "./config-assertions.js";

const OLD = "old-model";
const NEW = "new-model";

type Script = Parameters<typeof createScriptedModel>[0];

/**
 * Two models an agent offers (ids `old-model` and `new-model`, labels `Old model` / `New model`,
 * the old one the default), sharing one call log so a test sees which model each Step ran on. The
 * agent's own model has no script: a Step on it fails the test.
 */
function twoModels(scripts: { old: Script; new: Script }) {
  const call_log: ScriptedCall[] = [];
  const old = createScriptedModel(scripts.old, { model_id: OLD, call_log });
  const next = createScriptedModel(scripts.new, { model_id: NEW, call_log });
  const offered = new Map<string, AgentModel>([
    [OLD, { model_id: OLD, label: "Old model", model: old }],
    [NEW, { model_id: NEW, label: "New model", model: next }],
  ]);
  const models: AgentModels = { default_model_id: OLD, resolve: (model_id) => offered.get(model_id) };
  return { old, next, models, calledModels: () => call_log.map((call) => call.model_id) };
}

function harnessOf(models: ReturnType<typeof twoModels>): RuntimeHarness {
  return new RuntimeHarness({
    model: createScriptedModel([], { model_id: "agent-own" }),
    models: models.models,
  });
}

describe("models per session", () => {
  it("a new session runs the agent's default model unless it names another; both are configured and effective", async () => {
    const models = twoModels({ old: () => [{ text: "from old" }], new: () => [{ text: "from new" }] });
    const harness = harnessOf(models);
    const plain = await harness.createSession();
    expect(await plain.info()).toMatchObject({ model_id: OLD, effective_model_id: OLD });
    const chosen = await harness.createSession({ model_id: NEW });
    expect(await chosen.status()).toMatchObject({ model_id: NEW, effective_model_id: NEW });
    expect(await (await chosen.prompt({ query: "hi" })).finished).toMatchObject({ text: "from new" });
    expect(await (await plain.prompt({ query: "hi" })).finished).toMatchObject({ text: "from old" });
    expect(models.calledModels()).toEqual([NEW, OLD]);
    expect(await actions(harness, chosen.id)).toEqual([]);
  });

  it("an unknown model_id is invalid_input at create and at set, and changes nothing", async () => {
    const models = twoModels({ old: [], new: [] });
    const harness = harnessOf(models);
    await expect(harness.createSession({ model_id: "missing" })).rejects.toMatchObject({
      code: "invalid_input",
      message: "Unknown model_id: missing",
    });
    expect((await harness.store.listSessions({ limit: 10 })).items).toEqual([]);
    const session = await harness.createSession();
    const before = await session.status();
    expect(await codeAndMessage(session.set({ model_id: "missing" }))).toEqual([
      "invalid_input",
      "Unknown model_id: missing",
    ]);
    expect(
      await codeAndMessage(session.set({ model_id: "missing", security: { approval_mode: "always-allow" } })),
    ).toEqual(["invalid_input", "Unknown model_id: missing"]);
    expect(await codeAndMessage(session.set({ model_id: "" }))).toEqual([
      "invalid_input",
      "session.set model_id must be a non-empty string",
    ]);
    expect(await session.status()).toEqual(before);
    expect(harness.events).toEqual([]);
    expect(await harness.store.listQueuedCommands(session.id)).toEqual([]);
  });

  it("G56 (model half): a model and mode change plus a steer apply at the next Step of the same Turn, with one Action", async () => {
    const models = twoModels({ old: [[{ block: "call-1" }, { text: "one" }]], new: [[{ text: "two" }]] });
    const harness = harnessOf(models);
    const session = await harness.createSession();
    const first = await session.prompt({ query: "first" });
    await models.old.reached("call-1");
    expect(await session.set({ model_id: NEW, security: { approval_mode: "always-allow" } })).toEqual({
      queued: true,
    });
    expect(await session.status()).toMatchObject({
      state: "running",
      model_id: NEW,
      effective_model_id: OLD,
      security: { approval_mode: "always-allow", effective_approval_mode: "ask" },
    });
    expect(configMutations(harness.mutations(session.id))).toMatchObject([
      {
        model_id: NEW,
        effective_model_id: OLD,
        approval_mode: "always-allow",
        effective_approval_mode: "ask",
      },
    ]);
    const steer = session.prompt({ query: "and also" });
    models.old.release("call-1");
    expect((await steer).id).toBe(first.id);
    expect(await first.finished).toMatchObject({ success: true, text: "two" });
    expect(models.calledModels()).toEqual([OLD, NEW]);
    expect(models.next.calls[0]?.last_user_text).toBe("and also");
    expect(await actions(harness, session.id)).toMatchObject([
      {
        status: "completed",
        title: "Session configuration updated",
        description: "model: New model; security.approval_mode: always-allow",
        turn_id: first.id,
      },
    ]);
    expect(actionMutations(harness.mutations(session.id))).toHaveLength(1);
    expect(configMutations(harness.mutations(session.id)).at(-1)).toMatchObject({
      model_id: NEW,
      effective_model_id: NEW,
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
    });
    expect(await session.status()).toMatchObject({
      state: "idle",
      model_id: NEW,
      effective_model_id: NEW,
      security: { approval_mode: "always-allow", effective_approval_mode: "always-allow" },
    });
  });

  it("G56: a model switch while idle is effective from the next prompt; its Action names only the model", async () => {
    const models = twoModels({ old: () => [{ text: "old" }], new: () => [{ text: "new" }] });
    const harness = harnessOf(models);
    const session = await harness.createSession();
    await (await session.prompt({ query: "1" })).finished;
    expect(await session.set({ model_id: NEW, security: { approval_mode: "ask" } })).toEqual({
      queued: true,
    });
    expect(await session.info()).toMatchObject({ model_id: NEW, effective_model_id: OLD });
    const second = await session.prompt({ query: "2" });
    expect(await second.finished).toMatchObject({ text: "new" });
    expect(models.calledModels()).toEqual([OLD, NEW]);
    expect(await actions(harness, session.id)).toMatchObject([{ description: "model: New model" }]);
    const order = (await harness.messages(session.id)).map((message) => message.type);
    expect(order).toEqual(["user", "assistant", "action", "user", "assistant"]);
  });

  it("G59 (model half): persist_action / publish_mutation control the Action and its mutation; the same model again changes nothing", async () => {
    const models = twoModels({ old: () => [{ text: "old" }], new: () => [{ text: "new" }] });
    const harness = harnessOf(models);
    const session = await harness.createSession();
    await session.set({ model_id: NEW }, { persist_action: false, publish_mutation: false });
    expect(configMutations(harness.mutations(session.id))).toEqual([]);
    await (await session.prompt({ query: "1" })).finished;
    expect(await actions(harness, session.id)).toEqual([]);
    expect(models.calledModels()).toEqual([NEW]);
    await session.set({ model_id: OLD }, { publish_mutation: false });
    await (await session.prompt({ query: "2" })).finished;
    expect(await actions(harness, session.id)).toMatchObject([{ description: "model: Old model" }]);
    expect(actionMutations(harness.mutations(session.id))).toEqual([]);
    expect(configMutations(harness.mutations(session.id))).toEqual([]);
    const events = harness.events.length;
    expect(await session.set({ model_id: OLD })).toEqual({ queued: false });
    await (await session.prompt({ query: "3" })).finished;
    expect(await actions(harness, session.id)).toHaveLength(1);
    expect(configMutations(harness.events.slice(events).map((event) => event.mutation))).toEqual([]);
    expect(models.calledModels()).toEqual([NEW, OLD, OLD]);
    expect(
      await codeAndMessage(session.set({ model_id: NEW }, { persist_action: false, publish_mutation: true })),
    ).toEqual(["invalid_input", "session.set publish_mutation requires persist_action"]);
    expect((await session.status()).model_id).toBe(OLD);
  });

  it("G60: set({}) still requires a model or security", async () => {
    const harness = harnessOf(twoModels({ old: [], new: [] }));
    const session = await harness.createSession();
    expect(await codeAndMessage(session.set({}))).toEqual([
      "invalid_input",
      "session.set requires model or security",
    ]);
  });

  it("G65 (model half): when the Action cannot be persisted the new model is still used and nothing fails", async () => {
    const models = twoModels({ old: () => [{ text: "old" }], new: () => [{ text: "new" }] });
    const harness = harnessOf(models);
    const session = await harness.createSession();
    await session.set({ model_id: NEW });
    harness.faults.failNextCommit(
      new Error("action write failed"),
      (commit) => commit.message?.snapshot.type === "action",
    );
    const turn = await session.prompt({ query: "go" });
    expect(await turn.finished).toMatchObject({ success: true, text: "new" });
    expect(models.calledModels()).toEqual([NEW]);
    expect(await session.status()).toMatchObject({ model_id: NEW, effective_model_id: NEW });
    expect(await actions(harness, session.id)).toEqual([]);
  });

  it("G66 (model half): the options are forwarded with a model change, and non-booleans are invalid_input", async () => {
    const models = twoModels({ old: [], new: [] });
    const harness = harnessOf(models);
    const session = await harness.createSession();
    expect((await codeAndMessage(session.set({ model_id: NEW }, { persist_action: "no" } as never)))[0]).toBe(
      "invalid_input",
    );
    expect(await session.set({ model_id: NEW }, { persist_action: true, publish_mutation: false })).toEqual({
      queued: true,
    });
    const [command] = await harness.store.listQueuedCommands(session.id);
    expect(command).toMatchObject({
      kind: "set",
      input: { input: { model_id: NEW }, persist_action: true, publish_mutation: false },
    });
  });

  it("a restored session whose set command was lost runs with effective = configured, without an Action", async () => {
    const models = twoModels({ old: () => [{ text: "old" }], new: () => [{ text: "new" }] });
    const harness = harnessOf(models);
    const session = await harness.createSession({ process_id: "A" });
    await harness.store.commit({ session_id: session.id, session_patch: { model_id: NEW } });
    const restored = await harness.runtime("B").openSession(session.id);
    expect(await (await restored?.prompt({ query: "go" }))?.finished).toMatchObject({ text: "new" });
    expect(await restored?.status()).toMatchObject({ model_id: NEW, effective_model_id: NEW });
    expect(await actions(harness, session.id)).toEqual([]);
  });

  it("a session whose model the agent no longer offers, or that names none, runs the agent's own model", async () => {
    const models = twoModels({ old: [], new: [] });
    const own = createScriptedModel(() => [{ text: "own" }], { model_id: "agent-own" });
    const harness = new RuntimeHarness({ model: own, models: models.models });
    const gone = await harness.createSession();
    await harness.store.commit({
      session_id: gone.id,
      session_patch: { model_id: "retired", effective_model_id: "retired" },
    });
    expect(await (await gone.prompt({ query: "go" })).finished).toMatchObject({ text: "own" });
    const unnamed = await harness.createSession();
    await harness.store.commit({
      session_id: unnamed.id,
      session_patch: { model_id: null, effective_model_id: null },
    });
    expect(await (await unnamed.prompt({ query: "go" })).finished).toMatchObject({ text: "own" });
    expect(own.calls).toHaveLength(2);
    expect(models.calledModels()).toEqual([]);
  });
});
