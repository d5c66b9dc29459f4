import { describe, expect, it } from "vitest";
import { approval, pendingApproval, pendingQuestion, rejection } from "./respond-fixtures.js";

describe("respond(): refusals change nothing", () => {
  it("G13: an unknown id is interaction_not_found and publishes nothing", async () => {
    const { harness, session } = await pendingApproval();
    const before = harness.events.length;
    const error = await rejection(
      session.respond({ interaction_id: "interaction:nope", response: approval("approved") }),
    );
    expect(error.code).toBe("interaction_not_found");
    expect(error.message).toBe("Pending Session Interaction not found: interaction:nope");
    expect(harness.events.length).toBe(before);
  });

  it("G14: another session's Interaction is not found there and stays pending in its own", async () => {
    const { harness, session, interaction_id } = await pendingApproval();
    const other = await harness.createSession();
    const error = await rejection(other.respond({ interaction_id, response: approval("approved") }));
    expect(error.code).toBe("interaction_not_found");
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);
  });

  it("G15: answering a resolved Interaction again is interaction_not_pending and changes nothing", async () => {
    const { harness, session, interaction_id, turn } = await pendingApproval();
    await session.respond({ interaction_id, response: approval("approved") });
    await turn.finished;
    const stored = await harness.store.getInteraction(interaction_id);
    const error = await rejection(session.respond({ interaction_id, response: approval("denied") }));
    expect(error.code).toBe("interaction_not_pending");
    expect(error.message).toBe(`Session Interaction is already resolved: ${interaction_id}`);
    expect(await harness.store.getInteraction(interaction_id)).toEqual(stored);
  });

  it("G17: a response of another type is interaction_type_mismatch and the question stays pending", async () => {
    const { session, interaction_id } = await pendingQuestion();
    const error = await rejection(session.respond({ interaction_id, response: approval("approved") }));
    expect(error.code).toBe("interaction_type_mismatch");
    expect(error.message).toBe("Session Interaction response type mismatch");
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);
  });

  it("G18: an invalid outcome is refused and the Interaction stays pending", async () => {
    const { session, interaction_id } = await pendingApproval();
    const error = await rejection(
      session.respond({
        interaction_id,
        response: { type: "approval", outcome: "maybe", payload: {} },
      } as never),
    );
    expect(error.code).toBe("interaction_invalid_response");
    expect(error.message).toBe("Session Interaction response requires a valid outcome");
    expect(await session.interactions()).toHaveLength(1);
  });

  it("G19: a storage failure while responding leaves everything pending; a retry succeeds", async () => {
    const { harness, session, interaction_id, turn, decisions, effects } = await pendingApproval();
    harness.faults.failNextCommit(new Error("connection reset"));
    await expect(session.respond({ interaction_id, response: approval("approved") })).rejects.toThrow(
      "connection reset",
    );
    expect((await harness.tool(session.id, "call_1")).state).toBe("waiting-user");
    expect((await harness.store.getInteraction(interaction_id))?.interaction.status).toBe("pending");
    await Promise.resolve();
    expect(decisions).toEqual([]);
    expect(await session.respond({ interaction_id, response: approval("approved") })).toMatchObject({
      status: "resolved",
    });
    expect(await turn.finished).toMatchObject({ success: true });
    expect(effects).toEqual(["a.txt"]);
  });

  it("G27: an approval resolved with decision denied is refused as inconsistent and stays pending", async () => {
    const { session, interaction_id } = await pendingApproval();
    const error = await rejection(
      session.respond({ interaction_id, response: approval("denied", "resolved") }),
    );
    expect(error.code).toBe("interaction_invalid_response");
    expect(await session.interactions()).toHaveLength(1);
  });
});
