import { describe, expect, it } from "vitest";
import { GateSet } from "../../testing/gates.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";

describe("a queued prompt is never left without a driver", () => {
  it("a prompt queued while its host reads the queue (after a Turn ended) starts its Turn: a read that found nothing reads once more", async () => {
    const model = createScriptedModel(() => [{ text: "done" }]);
    // No liveness pass and no command sweep: either would drive a forgotten prompt within a second,
    // and hide the lost wake-up.
    const harness = new RuntimeHarness({ model, recovery_loop: false, command_sweep_ms: 0 });
    const session = await harness.createSession({ process_id: "A" });

    // The queue read the first Turn's end makes is held, and answers what it read before the second
    // prompt was committed (as a read in flight on a database would).
    let armed = false;
    const read = new GateSet().get("queue read after the first Turn");
    const listQueuedCommands = harness.store.listQueuedCommands.bind(harness.store);
    harness.store.listQueuedCommands = async (session_id) => {
      const queued = await listQueuedCommands(session_id);
      if (!armed) return queued;
      armed = false;
      read.arrive();
      await read.released;
      return queued;
    };
    const firstEnded = harness.waitFor((mutation) => {
      if (mutation.variant !== "turn" || mutation.type !== "finish") return false;
      armed = true;
      return true;
    });

    const first = await session.prompt({ query: "one" });
    await firstEnded;
    expect(await first.finished).toMatchObject({ success: true, text: "done" });
    await read.reached;
    const second = await session.prompt({ query: "two" });
    expect(second.id).not.toBe(first.id);
    read.release();

    expect(await second.finished).toMatchObject({ success: true, text: "done" });
    expect(model.calls.map((call) => call.last_user_text)).toEqual(["one", "two"]);
    await harness.shutdown();
  });
});
