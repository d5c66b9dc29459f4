import { describe, expect, it } from "vitest";
import { buildInteraction } from "../../testing/fixtures.js";
import { InteractionWaiters } from "./interaction-waiters.js";

/** Whether `promise` has settled by the time queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe("InteractionWaiters (the reference's tool-part gate)", () => {
  it("G68: an answer releases only its own tool's wait; an abandoned Turn's waits never continue, and the waiters stay usable", async () => {
    const waiters = new InteractionWaiters();
    const turn = {};
    const waitA = waiters.wait("interaction:a", turn, undefined, "call-a");
    const waitB = waiters.wait("interaction:b", turn, undefined, "call-b");
    expect(waiters.waitingTools(turn)).toEqual(new Set(["call-a", "call-b"]));

    waiters.settleFrom(
      buildInteraction({ interaction_id: "interaction:a", tool_call_id: "call-a", status: "resolved" }),
    );
    expect(await waitA).toMatchObject({ status: "resolved", interaction_id: "interaction:a" });
    expect(await settled(waitB)).toBe(false);
    expect(waiters.waitingTools(turn)).toEqual(new Set(["call-b"]));

    // Parley's `reject_pending`/`close`: the Turn is abandoned (stopped or fenced) and its tools must
    // never run on in this process, so their waits are dropped rather than settled.
    waiters.abandon(turn);
    waiters.settleFrom(
      buildInteraction({ interaction_id: "interaction:b", tool_call_id: "call-b", status: "resolved" }),
    );
    expect(await settled(waitB)).toBe(false);
    expect(waiters.waitingInteractionIds()).toEqual([]);

    const nextTurn = {};
    const waitC = waiters.wait("interaction:c", nextTurn, undefined, "call-c");
    waiters.settleFrom(
      buildInteraction({ interaction_id: "interaction:c", tool_call_id: "call-c", status: "denied" }),
    );
    expect(await waitC).toEqual({ status: "denied", interaction_id: "interaction:c" });
  });
});
