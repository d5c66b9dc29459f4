import { afterEach, describe, expect, it } from "vitest";
import { consecutiveFromOne, MultiProcessFixture } from "../test-support/multi-process-fixture.js";

let fixture: MultiProcessFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

// Each forked worker compiles its sources with tsx at start (seconds on a busy machine).
describe("crash recovery with real processes (SIGKILL)", { timeout: 240_000 }, () => {
  it("a pending approval survives kill -9 as rows; the answer through a new process runs the side effect once and completes the Turn", async () => {
    fixture = await MultiProcessFixture.create();
    const a = await fixture.startWorker("A");
    const session_id = await a.createSession();
    const turn_id = await a.prompt(session_id, "note-1");
    const pending = await fixture.pendingInteraction(session_id);
    expect(pending).toMatchObject({ tool_name: "write_note", tool_call_id: "call_note-1" });

    await a.kill();
    const b = await fixture.startWorker("B");
    // A Turn waiting for a person is rows (DESIGN §10.7): nobody needs to take it over until its
    // answer, so recovery leaves it alone.
    const { store } = fixture;
    await fixture.eventually(async () => (await store.getActiveTurn(session_id))?.state === "waiting");
    expect(await b.recover()).toEqual([]);
    expect(
      (await fixture.store.listPendingInteractions(session_id)).map((row) => row.interaction.interaction_id),
    ).toEqual([pending.interaction.interaction_id]);
    expect(await fixture.effects()).toEqual([]);

    expect(await b.respond(session_id, pending.interaction.interaction_id)).toMatchObject({
      status: "resolved",
    });
    const finish = await fixture.turnFinish(session_id, turn_id);
    expect(finish).toMatchObject({ status: "completed", text: "done note-1" });
    expect(await fixture.effects()).toEqual(["note-1 by B"]);

    const events = await fixture.events(session_id);
    expect(events.map((event) => event.event_id)).toEqual(consecutiveFromOne(events));
    const interactions = await fixture.store.queryInteractions({ session_id, limit: 10 });
    expect(interactions.items.map((row) => [row.interaction.interaction_id, row.interaction.status])).toEqual(
      [[pending.interaction.interaction_id, "resolved"]],
    );
    const messages = (await fixture.store.listMessages(session_id, { limit: 50 })).items;
    const tool = messages
      .flatMap((message) => (message.type === "assistant" ? message.parts : []))
      .find((part) => part.type === "tool");
    expect(tool).toMatchObject({ state: "completed", output: { written: true } });
  });

  it("a tool that was running at the crash fails with `Tool interrupted by server restart` and the Turn goes on", async () => {
    fixture = await MultiProcessFixture.create();
    const a = await fixture.startWorker("A");
    const session_id = await a.createSession();
    const turn_id = await a.prompt(session_id, "hang-1");
    const pending = await fixture.pendingInteraction(session_id);
    await a.respond(session_id, pending.interaction.interaction_id);
    await a.waitFor((message) => message.type === "tool-running");
    await a.kill();

    // B's recovery loop (the API's interval) claims the Turn its dead holder left running.
    await fixture.startWorker("B");
    const finish = await fixture.turnFinish(session_id, turn_id);
    expect(finish).toMatchObject({ status: "completed", text: "done hang-1" });
    const messages = (await fixture.store.listMessages(session_id, { limit: 50 })).items;
    const tool = messages
      .flatMap((message) => (message.type === "assistant" ? message.parts : []))
      .find((part) => part.type === "tool");
    expect(tool).toMatchObject({ state: "failed", error: "Tool interrupted by server restart" });
    expect(await fixture.effects()).toEqual([]);
    const events = await fixture.events(session_id);
    expect(events.map((event) => event.event_id)).toEqual(consecutiveFromOne(events));
  });
});
