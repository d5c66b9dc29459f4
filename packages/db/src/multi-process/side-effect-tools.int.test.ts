import type { SessionEvent } from "@parley/session-core";
import { toolPartsOfMutation } from "@parley/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { consecutiveFromOne, MultiProcessFixture } from "../test-support/multi-process-fixture.js";

let fixture: MultiProcessFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

/**
 * The session's durable events that carry its tool part, `<variant> r<revision>` in event order: a
 * `message` event when the checkpoint inserted the message or changed several parts, a `part` event
 * otherwise (§10.6). The log references the stored part, so its state is read from the store.
 */
function toolEvents(events: SessionEvent[]): string[] {
  return events.flatMap(({ mutation }) =>
    toolPartsOfMutation(mutation).map(
      () => `${mutation.variant} r${"revision" in mutation ? mutation.revision : "?"}`,
    ),
  );
}

async function storedTools(session_id: string) {
  const messages = (await fixture?.store.listMessages(session_id, { limit: 50 }))?.items ?? [];
  return messages.flatMap((message) =>
    message.type === "assistant" ? message.parts.filter((part) => part.type === "tool") : [],
  );
}

// Each forked worker compiles its sources with tsx at start (seconds on a busy machine).
describe("a tool with a side effect and no approval, with real processes (SIGKILL)", {
  timeout: 240_000,
}, () => {
  it("killed while running after its side effect: failed as interrupted by the survivor, never run again", async () => {
    fixture = await MultiProcessFixture.create();
    const a = await fixture.startWorker("A");
    const session_id = await a.createSession();
    const turn_id = await a.prompt(session_id, "direct-hang-1");
    // append_note never asks: checkpoint 4 committed it `running`, then it appended and hangs.
    await a.waitFor((message) => message.type === "tool-running");
    await a.kill();
    expect(await fixture.effects()).toEqual(["direct-hang-1 by A"]);
    // Checkpoint 4 committed the tool `running` before its side effect: the state A left stored.
    expect(await storedTools(session_id)).toMatchObject([{ tool_name: "append_note", state: "running" }]);

    // B's recovery loop (the API's interval) claims the Turn its dead holder left running.
    await fixture.startWorker("B");
    const finish = await fixture.turnFinish(session_id, turn_id);
    expect(finish).toMatchObject({ status: "completed", text: "done direct-hang-1" });
    expect(await fixture.effects()).toEqual(["direct-hang-1 by A"]);
    const tools = await storedTools(session_id);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      tool_name: "append_note",
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    const events = await fixture.events(session_id);
    expect(events.map((event) => event.event_id)).toEqual(consecutiveFromOne(events));
    // Checkpoint 4 was the message's first commit; the survivor fails the part, then closes the message.
    expect(toolEvents(events)).toEqual(["message r1", "part r2", "message r3"]);
  });
});
