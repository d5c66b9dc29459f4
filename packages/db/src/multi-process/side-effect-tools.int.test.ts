import type { SessionEvent } from "@parley/session-core";
import { afterEach, describe, expect, it } from "vitest";
import { consecutiveFromOne, MultiProcessFixture } from "../test-support/multi-process-fixture.js";

let fixture: MultiProcessFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

/**
 * The committed states of the session's tool parts past their input, in event order (consecutive
 * repeats collapsed); `input-streaming` and `ready` are live states (§10.6), left out.
 */
function toolStates(events: SessionEvent[]): string[] {
  const states: string[] = [];
  for (const { mutation } of events) {
    const parts =
      mutation.variant === "part"
        ? [mutation.part]
        : mutation.variant === "message" && mutation.message.type === "assistant"
          ? mutation.message.parts
          : [];
    for (const part of parts) {
      if (part.type !== "tool" || part.state === "input-streaming" || part.state === "ready") continue;
      if (states.at(-1) !== part.state) states.push(part.state);
    }
  }
  return states;
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

    // B's recovery loop (the API's interval) claims the Turn its dead holder left running.
    await fixture.startWorker("B");
    const finish = await fixture.turnFinish(session_id, turn_id);
    expect(finish).toMatchObject({ status: "completed", text: "done direct-hang-1" });
    expect(await fixture.effects()).toEqual(["direct-hang-1 by A"]);
    const messages = (await fixture.store.listMessages(session_id, { limit: 50 })).items;
    const tools = messages.flatMap((message) =>
      message.type === "assistant" ? message.parts.filter((part) => part.type === "tool") : [],
    );
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      tool_name: "append_note",
      state: "failed",
      error: "Tool interrupted by server restart",
    });
    const events = await fixture.events(session_id);
    expect(events.map((event) => event.event_id)).toEqual(consecutiveFromOne(events));
    expect(toolStates(events)).toEqual(["running", "failed"]);
  });
});
