import { describe, expect, it } from "vitest";
import type { RuntimeHarness } from "../../testing/runtime-harness.js";
import { approve, turnFinish, untilHostless, waitingInA } from "./durable-fixtures.js";

/** A response the approval's schema refuses (`interaction_invalid_response`) once it was read. */
const refused = (interaction_id: string) => ({
  interaction_id,
  response: { type: "approval", outcome: "resolved" as const, payload: { decision: "maybe" } },
});

/**
 * The session's lock asked for beside the answer's read (`AnswerLock`): the claim of a parked Turn
 * takes it; an answer that claims nothing gives it back through the session's host.
 */
describe("the answer's lock, asked for while its context is read", () => {
  /**
   * A Turn of process A waiting for an approval: parked (no host, no lease), or held by A's host.
   * No recovery loop: a wake-up must not wait for a liveness pass.
   */
  async function waitingInAFor(park_waiting_turns: boolean) {
    const waiting = await waitingInA(["call_1"], { park_waiting_turns, recovery_loop: false });
    if (park_waiting_turns) await untilHostless(waiting.harness, "A");
    return { ...waiting, interaction_id: waiting.interaction_ids[0] ?? "" };
  }

  /** A Turn parked in A, and B's first read of an answer context held at a gate. */
  async function parkedWithGatedRead() {
    const { harness, session, turn, interaction_id, effects } = await waitingInAFor(true);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let gated = 1;
    const getAnswerContext = harness.store.getAnswerContext.bind(harness.store);
    harness.store.getAnswerContext = async (session_id, id) => {
      // Only the first read waits (the answer under test); later ones go straight through.
      if (gated > 0) {
        gated -= 1;
        await gate;
      }
      return getAnswerContext(session_id, id);
    };
    const remote = await harness.runtime("B").openSession(session.id);
    if (!remote) throw new Error("session not found");
    return { harness, session, remote, turn, interaction_id, open, effects };
  }

  async function untilLockedBy(harness: RuntimeHarness, session_id: string, process_id: string) {
    while (harness.leases.holderOf(session_id)?.process_id !== process_id) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  it("the session is locked while the answer is read, and the answer claims the Turn with that lock", async () => {
    const { harness, session, remote, turn, interaction_id, open, effects } = await parkedWithGatedRead();
    const claims: unknown[] = [];
    const commit = harness.store.commit.bind(harness.store);
    harness.store.commit = async (change) => {
      if (change.claim) claims.push(change.claim);
      return commit(change);
    };
    const finished = turnFinish(harness, turn.id);
    const answered = remote.respond(approve(interaction_id));
    // Still reading (the read waits at the gate): the lock is held already.
    await untilLockedBy(harness, session.id, "B");
    open();
    await expect(answered).resolves.toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    // The claim's commit was B's (it resumed the Turn); the finished Turn's lease is given back.
    expect(claims).toEqual([{ holder: "B", turn_id: turn.id }]);
    while (harness.leases.holderOf(session.id) !== null) await new Promise((r) => setTimeout(r, 1));
  });

  it("an answer refused after its read gives the lock back; the next answer resumes the Turn", async () => {
    const { harness, session, remote, turn, interaction_id, open, effects } = await parkedWithGatedRead();
    const answered = remote.respond(refused(interaction_id));
    await untilLockedBy(harness, session.id, "B");
    open();
    await expect(answered).rejects.toMatchObject({ code: "interaction_invalid_response" });
    expect(harness.leases.holderOf(session.id)).toBeNull();
    expect(effects).toEqual([]);
    const finished = turnFinish(harness, turn.id);
    await expect(remote.respond(approve(interaction_id))).resolves.toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("an answer committed while another answer's lock was held is resumed once that lock is given back", async () => {
    const { harness, session, remote, turn, interaction_id, open, effects } = await parkedWithGatedRead();
    // B's first answer holds the lock while it reads; A's answer, refused the lock, commits without
    // claiming the Turn, and its own re-read finds the session locked.
    const held = remote.respond(refused(interaction_id));
    await untilLockedBy(harness, session.id, "B");
    const finished = turnFinish(harness, turn.id);
    await expect(session.respond(approve(interaction_id))).resolves.toMatchObject({ status: "resolved" });
    expect(effects).toEqual([]);
    open();
    await expect(held).rejects.toMatchObject({ code: "interaction_not_pending" });
    // Given back through B's host, which read the Turn again and resumed it.
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
  });

  it("a claim never takes the lock of another session: the answer commits without it and the Turn resumes", async () => {
    const { harness, session, turn, interaction_id, effects } = await waitingInAFor(true);
    const other = await harness.createSession({ process_id: "B" });
    const runtime = harness.runtime("B");
    const wrong = runtime.lockForAnswer(other.id);
    const context = await harness.store.getAnswerContext(session.id, interaction_id);
    const remote = await runtime.openSession(session.id);
    const finished = turnFinish(harness, turn.id);
    await expect(
      remote?.respond(approve(interaction_id), undefined, {
        interaction: context?.interaction ?? null,
        ...(wrong ? { answer_lock: wrong } : {}),
      }),
    ).resolves.toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed", text: "all done" });
    expect(effects).toEqual(["file-0"]);
    // Still the caller's to give back.
    expect(harness.leases.holderOf(other.id)?.process_id).toBe("B");
    await wrong?.settle(null);
    expect(harness.leases.holderOf(other.id)).toBeNull();
  });

  it("an answer to a session whose Turn runs in this process asks for no lock", async () => {
    // Not parked: A's host runs the waiting Turn and holds the lease.
    const { harness, session, turn, interaction_id, effects } = await waitingInAFor(false);
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });
    expect(harness.runtime("A").lockForAnswer(session.id)).toBeUndefined();
    const finished = turnFinish(harness, turn.id);
    await expect(session.respond(approve(interaction_id))).resolves.toMatchObject({ status: "resolved" });
    expect(await finished).toMatchObject({ status: "completed" });
    expect(effects).toEqual(["file-0"]);
    // The Turn went on under A's lease: nothing claimed it again.
    expect(harness.leases.holderOf(session.id)).toEqual({ process_id: "A", epoch: 1 });
  });
});
