import { describe, expect, it } from "vitest";
import type { SessionInfo, SessionStatus } from "../../schema/session.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";

describe("a finished Turn reads as finished to whoever saw its finish", () => {
  it("status() and info() called from the turn-finish mutation's listener answer idle", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([[{ text: "hello" }]]) });
    const session = await harness.createSession();
    const seen: { status: SessionStatus; info: SessionInfo }[] = [];
    let reads: Promise<void> = Promise.resolve();
    session.subscribe((mutation) => {
      if (mutation.variant !== "turn" || mutation.type !== "finish") return;
      // Read at once, before the runner releases its lease and leaves the host.
      reads = Promise.all([session.status(), session.info()]).then(([status, info]) => {
        seen.push({ status, info });
      });
    });
    const turn = await session.prompt({ query: "hi" });
    expect((await turn.finished).success).toBe(true);
    await reads;
    expect(seen).toHaveLength(1);
    expect(seen[0]?.status.state).toBe("idle");
    expect(seen[0]?.status.active_turn_id).toBeUndefined();
    expect(seen[0]?.info.state).toBe("idle");
  });
});
