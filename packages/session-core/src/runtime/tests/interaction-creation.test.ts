import { describe, expect, it } from "vitest";
import type { SessionMutation } from "../../schema/mutation.js";
import { toolPartsOfMutation } from "../../testing/mutation-recorder.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createApprovalTool, createRequestTool } from "./tools.js";

describe("Interaction creation and structure", () => {
  it("G1: a request on a ready tool makes it waiting-user with one pending Interaction", async () => {
    const asker = createRequestTool((context) => ({
      type: "question",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      payload: { questions: [] },
    }));
    const model = createScriptedModel([[{ tool_call: { id: "call-9", name: "asker" } }]]);
    const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
    const session = await harness.createSession();
    await session.prompt({ query: "go" });
    const interaction_id = await harness.pendingInteraction("call-9");
    const [assistant] = await harness.assistants(session.id);
    expect(assistant?.parts.map((part) => part.type)).toEqual(["step-start", "tool"]);
    const tool = await harness.tool(session.id, "call-9");
    expect(tool.state).toBe("waiting-user");
    expect(tool.part_id).toBe("tool:call-9");
    expect(tool.interactions?.map((item) => item.interaction_id)).toEqual([interaction_id]);
    expect(tool.interactions?.[0]?.status).toBe("pending");
    expect(asker.handles.map((handle) => handle.interaction_id)).toEqual([interaction_id]);
  });

  it("G2: two requests on one tool are listed and stored in creation order", async () => {
    const asker = createRequestTool(
      (context, index) => ({
        type: "question",
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        title: `q${index}`,
        payload: { questions: [] },
      }),
      2,
    );
    const model = createScriptedModel([[{ tool_call: { id: "call-9", name: "asker" } }]]);
    const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
    const session = await harness.createSession();
    await session.prompt({ query: "go" });
    await harness.waitFor(
      (mutation) =>
        mutation.variant === "part" &&
        mutation.part.type === "tool" &&
        (mutation.part.interactions ?? []).length === 2,
    );
    const stored = (await harness.tool(session.id, "call-9")).interactions ?? [];
    const ids = stored.map((item) => item.interaction_id);
    expect(stored.map((item) => item.request.title)).toEqual(["q0", "q1"]);
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual(ids);
    const records = await Promise.all(ids.map((id) => harness.store.getInteraction(id)));
    expect(records.map((record) => record?.ordinal)).toEqual([0, 1]);
  });

  it("G3: a request for a tool call that has no part yet is refused; once ready it waits", async () => {
    const { tool } = createApprovalTool();
    const model = createScriptedModel([
      [{ block: "before-call" }, { tool_call: { id: "call-x", name: "delete_file", input: { path: "a" } } }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    await model.reached("before-call");
    await expect(
      session.interactions.approval.request({
        turn_id: turn.id,
        tool_call_id: "call-x",
        payload: { operation: "tool" },
      }),
    ).rejects.toThrow("Streaming Tool Part not found: call-x");
    expect(await session.interactions()).toEqual([]);
    model.release("before-call");
    await harness.pendingInteraction("call-x");
    expect(harness.toolStates(session.id, "call-x")).toEqual(["waiting-user"]);
    expect(harness.liveToolStates(session.id, "call-x")).toEqual(["input-streaming", "ready"]);
  });

  it("G4: a request for a tool still streaming its input is refused and publishes nothing", async () => {
    const model = createScriptedModel([
      [
        { tool_call: { id: "call-s", name: "delete_file", input: { path: "a" }, partial: true } },
        { block: "streaming" },
      ],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: createApprovalTool().tool } });
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    await model.reached("streaming");
    await harness.waitForLive(
      (mutation) => mutation.variant === "part" && mutation.part_id === "tool:call-s",
    );
    const before = harness.events.length;
    await expect(
      session.interactions.request({
        type: "question",
        turn_id: turn.id,
        tool_call_id: "call-s",
        payload: {},
      }),
      // The part is live only (DESIGN §10.6); the session finds it in its live copy.
    ).rejects.toThrow("Tool Interaction requires ready input: call-s (input-streaming)");
    expect(
      harness.events
        .slice(before)
        .filter(
          (event) =>
            event.mutation.variant === "part" &&
            event.mutation.part.type === "tool" &&
            (event.mutation.part.interactions ?? []).length > 0,
        ),
    ).toEqual([]);
    expect(await session.interactions()).toEqual([]);
    await session.stop();
  });

  it("G5: an envelope without turn_id, type or tool_call_id is refused before anything is persisted", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession();
    const base = { type: "question", turn_id: "turn:x", tool_call_id: "call-1", payload: {} };
    await expect(session.interactions.request({ ...base, turn_id: "" })).rejects.toThrow(
      "Session Interaction requires turn_id",
    );
    await expect(session.interactions.request({ ...base, type: "" })).rejects.toThrow(
      "Session Interaction requires a non-empty type",
    );
    await expect(session.interactions.request({ ...base, tool_call_id: "" })).rejects.toThrow(
      "Session Interaction requires the Tool Call it belongs to",
    );
    expect(harness.events).toEqual([]);
  });

  it("G6: the primitive fills interaction_id, created_at and source (tool or shell)", async () => {
    const asker = createRequestTool(
      (context, index) => ({
        type: "approval",
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: "asker",
        ...(index === 1 ? { source_type: "shell" as const } : {}),
        payload: { operation: "exec", command: "ls" },
      }),
      2,
    );
    const model = createScriptedModel([[{ tool_call: { id: "call-6", name: "asker" } }]]);
    const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
    const session = await harness.createSession();
    await session.prompt({ query: "go" });
    await harness.waitFor(
      (mutation) =>
        mutation.variant === "part" &&
        mutation.part.type === "tool" &&
        (mutation.part.interactions ?? []).length === 2,
    );
    const [tool_request, shell_request] = await session.interactions();
    expect(tool_request?.interaction_id).toMatch(/^interaction:/);
    expect(typeof tool_request?.created_at).toBe("number");
    expect(tool_request?.source).toEqual({ type: "tool", tool_call_id: "call-6", tool_name: "asker" });
    expect(shell_request?.source).toEqual({ type: "shell", tool_call_id: "call-6", tool_name: "asker" });
  });

  it("G7: a storage failure while creating rejects the request, publishes nothing and leaves nothing pending", async () => {
    const asker = createRequestTool((context) => ({
      type: "question",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      payload: {},
    }));
    const model = createScriptedModel([
      [{ tool_call: { id: "call-7", name: "asker" } }],
      [{ text: "after" }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { asker: asker.tool } });
    harness.faults.failNextCommit(new Error("disk full"), (commit) =>
      (commit.interaction_events ?? []).some((event) => event.kind === "created"),
    );
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "go" });
    expect(await turn.finished).toMatchObject({ success: true, text: "after" });
    expect(asker.handles).toEqual([]);
    const tool = await harness.tool(session.id, "call-7");
    expect(tool.state).toBe("failed");
    expect(tool.error).toBe("disk full");
    expect(harness.toolStates(session.id, "call-7")).not.toContain("waiting-user");
    expect(await session.interactions()).toEqual([]);
  });

  it("G8: creation publishes exactly one mutation of the tool, durable, whose revision is the persisted one", async () => {
    const model = createScriptedModel([
      [{ tool_call: { id: "call-8", name: "delete_file", input: { path: "a" } } }],
    ]);
    const harness = new RuntimeHarness({ model, tools: { delete_file: createApprovalTool().tool } });
    const session = await harness.createSession();
    const seen: SessionMutation[] = [];
    session.subscribe((mutation) => {
      if (toolPartsOfMutation(mutation).some((part) => part.interactions?.length)) seen.push(mutation);
    });
    await session.prompt({ query: "go" });
    await harness.pendingInteraction("call-8");
    const [assistant] = await harness.assistants(session.id);
    expect(seen).toHaveLength(1);
    // The first checkpoint of a message that was live until then: it is published whole.
    expect(seen[0]).toMatchObject({ variant: "message", revision: assistant?.revision });
    expect(seen[0]).not.toHaveProperty("live");
    expect(seen.flatMap(toolPartsOfMutation)).toMatchObject([{ state: "waiting-user" }]);
    const page = await session.messages();
    const stored = page.items.find((message) => message.type === "assistant");
    expect(stored?.type === "assistant" && stored.parts.find((part) => part.type === "tool")).toMatchObject({
      state: "waiting-user",
    });
  });
});
