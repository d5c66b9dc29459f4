import { describe, expect, it } from "vitest";
import { ParleyError } from "../../errors.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool } from "./tools.js";

const ALWAYS = { security: { approval_mode: "always-allow" as const } };

const approve = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } },
});

/** Lets every queued microtask and pending in-memory write run (lease releases finish in the background). */
function drained(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function approvalHarness(steps = 2) {
  const approval = createApprovalTool();
  const script = [];
  for (let step = 0; step < steps; step += 1) {
    script.push([{ tool_call: { id: `call_${step}`, name: "delete_file", input: { path: `f${step}` } } }]);
    script.push([{ text: `done ${step}` }]);
  }
  const model = createScriptedModel(script);
  const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
  return { harness, model, ...approval };
}

describe("session hosts are evicted once they hold nothing live", () => {
  it("1,000 sessions opened and read leave no host behind", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const runtime = harness.runtime();
    const ids: string[] = [];
    for (let index = 0; index < 1_000; index += 1) ids.push((await harness.createSession()).id);
    expect(runtime.stats()).toEqual({ hosts: 0 });
    for (const session_id of ids) {
      const session = await runtime.openSession(session_id);
      if (!session) throw new Error(`session ${session_id} not found`);
      expect((await session.status()).state).toBe("idle");
      expect((await session.info()).pending_interactions).toBe(0);
      expect(await session.interactions()).toEqual([]);
      // stop() needs the host: it is created for the call and dropped after it.
      expect(await session.stop()).toEqual({ stopped: false, cancelled_queued_prompts: 0, reason: "idle" });
      await expect(session.respond(approve("interaction:missing"))).rejects.toMatchObject({
        code: "interaction_not_found",
      });
    }
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    expect(harness.events).toEqual([]);
  });

  it("a host lives while its Turn waits and is evicted once the Turn ended and its lease is released", async () => {
    const { harness, effects } = approvalHarness(1);
    const runtime = harness.runtime();
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete" });
    const interaction_id = await harness.pendingInteraction("call_0");
    expect(runtime.stats()).toEqual({ hosts: 1 });
    await session.respond(approve(interaction_id));
    expect(await turn.finished).toMatchObject({ success: true, text: "done 0" });
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    expect(harness.leases.holderOf(session.id)).toBeNull();
    expect(effects).toEqual(["f0"]);
  });

  it("a subscriber keeps the host; the last unsubscribe lets it go", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([[{ text: "hi" }]]) });
    const runtime = harness.runtime();
    const session = await harness.createSession();
    const seen: string[] = [];
    const first = session.subscribe((mutation) => {
      seen.push(mutation.variant);
    });
    const second = session.subscribe(() => undefined);
    await (await session.prompt({ query: "hello" })).finished;
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 1 });
    first();
    first();
    expect(runtime.stats()).toEqual({ hosts: 1 });
    second();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    expect(seen[0]).toBe("turn");
    expect(seen.at(-1)).toBe("turn");
  });

  it("a queued mode change is a row: it keeps no host and is applied, with its Action, at the next prompt", async () => {
    const { harness, decisions } = approvalHarness(1);
    const runtime = harness.runtime();
    const session = await harness.createSession();
    expect(await session.set(ALWAYS)).toEqual({ queued: true });
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    for (let index = 0; index < 20; index += 1) {
      const other = await harness.createSession();
      await other.stop();
    }
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    const reopened = await runtime.openSession(session.id);
    expect((await reopened?.status())?.security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "ask",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    const turn = await reopened?.prompt({ query: "delete" });
    expect(await turn?.finished).toMatchObject({ success: true, text: "done 0" });
    expect(decisions).toEqual([{ approved: true, auto_approved: true, input: { path: "f0" } }]);
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => message.type)).toEqual(["action", "user", "assistant"]);
    expect(messages[0]).toMatchObject({
      type: "action",
      title: "Session configuration updated",
      description: "security.approval_mode: always-allow",
      turn_id: turn?.id,
    });
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
  });

  it("an evicted session starts its next Turn from the store: sequences continue, modes are the stored ones", async () => {
    const { harness, decisions } = approvalHarness(2);
    const runtime = harness.runtime();
    const session = await harness.createSession({ approval_mode: "always-allow" });
    expect(await (await session.prompt({ query: "one" })).finished).toMatchObject({ text: "done 0" });
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    const reopened = await runtime.openSession(session.id);
    expect(await (await reopened?.prompt({ query: "two" }))?.finished).toMatchObject({ text: "done 1" });
    expect(decisions).toEqual([
      { approved: true, auto_approved: true, input: { path: "f0" } },
      { approved: true, auto_approved: true, input: { path: "f1" } },
    ]);
    const messages = await harness.messages(session.id);
    expect(messages.map((message) => [message.sequence, message.type])).toEqual([
      [1, "user"],
      [2, "assistant"],
      [3, "user"],
      [4, "assistant"],
    ]);
    expect((await session.status()).security).toEqual({
      approval_mode: "always-allow",
      effective_approval_mode: "always-allow",
      tool_allowances: [],
      effective_tool_allowances: [],
    });
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
  });

  it("a retried prompt gets the first handle even after the host was evicted", async () => {
    const harness = new RuntimeHarness({
      model: createScriptedModel([[{ text: "once" }], [{ text: "twice" }]]),
    });
    const runtime = harness.runtime();
    const session = await harness.createSession();
    const first = await session.prompt({ query: "hi", request_id: "request:1" });
    await first.finished;
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    const retried = await session.prompt({ query: "hi", request_id: "request:1" });
    expect(retried.id).toBe(first.id);
    expect(await retried.finished).toMatchObject({ success: true, text: "once" });
    expect((await harness.messages(session.id)).map((message) => message.type)).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("a process that answered for another process's Turn holds no host and answers its next request too", async () => {
    const approval = createApprovalTool();
    const model = createScriptedModel([
      [{ tool_call: { id: "call_a", name: "delete_file", input: { path: "a" } } }],
      [{ tool_call: { id: "call_b", name: "delete_file", input: { path: "b" } } }],
      [{ text: "both" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: approval.tool } });
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete" });
    const b = harness.runtime("B");
    const remote = await b.openSession(session.id);
    await remote?.respond(approve(await harness.pendingInteraction("call_a")));
    await drained();
    expect(b.stats()).toEqual({ hosts: 0 });
    const again = await b.openSession(session.id);
    await again?.respond(approve(await harness.pendingInteraction("call_b")));
    expect(await turn.finished).toMatchObject({ success: true, text: "both" });
    expect(approval.effects).toEqual(["a", "b"]);
    await drained();
    expect(b.stats()).toEqual({ hosts: 0 });
    expect(harness.runtime("A").stats()).toEqual({ hosts: 0 });
  });

  it("an evicted session whose owner died is resumed by a respond in another process, which lets it go after", async () => {
    const { harness, effects } = approvalHarness(1);
    const session = await harness.createSession({ process_id: "A" });
    const turn = await session.prompt({ query: "delete" });
    const interaction_id = await harness.pendingInteraction("call_0");
    await harness.kill("A");
    const b = harness.runtime("B");
    const opened = await b.openSession(session.id);
    expect((await opened?.status())?.state).toBe("running");
    expect(b.stats()).toEqual({ hosts: 0 });
    const finished = harness.waitFor(
      (mutation) => mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn.id,
    );
    expect(await opened?.respond(approve(interaction_id))).toMatchObject({ status: "resolved" });
    expect(b.stats()).toEqual({ hosts: 1 });
    expect(await finished).toMatchObject({ status: "completed", text: "done 0" });
    expect(effects).toEqual(["f0"]);
    await drained();
    expect(b.stats()).toEqual({ hosts: 0 });
    expect(harness.leases.holderOf(session.id)).toBeNull();
  });

  it("a closed session stays closed after its host was evicted", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const runtime = harness.runtime();
    const session = await harness.createSession();
    await session.close();
    await drained();
    expect(runtime.stats()).toEqual({ hosts: 0 });
    const error = await session.prompt({ query: "hi" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ParleyError);
    expect(error).toMatchObject({ code: "session_closed" });
  });
});
