import { describe, expect, it } from "vitest";
import { T0 } from "../fixtures.js";
import {
  type ConformanceContext,
  createSession,
  enqueuePrompt,
  expectConflict,
  expectParleyCode,
  progress,
} from "./context.js";

/** The Turn row (DESIGN §10.7): written with the commits that move a Turn, read through an index. */
export function describeTurnConformance(context: ConformanceContext): void {
  describe("turn rows", () => {
    it("a prompt's new Turn is queued; commits move it running, waiting, running; its finish ends it", async () => {
      await createSession(context, "session:a");
      expect(await context.store.getActiveTurn("session:a")).toBeNull();
      await enqueuePrompt(context, "session:a", "turn:a");
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({
        session_id: "session:a",
        turn_id: "turn:a",
        state: "queued",
        holder: null,
      });
      await progress(context, "session:a", "turn:a", "running");
      expect((await context.store.getActiveTurn("session:a"))?.state).toBe("running");
      await progress(context, "session:a", "turn:a", "waiting");
      expect((await context.store.getActiveTurn("session:a"))?.state).toBe("waiting");
      await progress(context, "session:a", "turn:a", "running");
      expect((await context.store.getActiveTurn("session:a"))?.state).toBe("running");
      await context.store.commit({
        session_id: "session:a",
        ends_turn: { turn_id: "turn:a", cancel_queued_prompts: true },
      });
      expect(await context.store.getActiveTurn("session:a")).toBeNull();
      // A late write of a finished Turn never brings it back.
      await progress(context, "session:a", "turn:a", "running");
      expect(await context.store.getActiveTurn("session:a")).toBeNull();
      expect(await context.store.listTurnsNeedingDriver({ limit: 10 })).toEqual([]);
      // The next prompt starts the next Turn, queued.
      await enqueuePrompt(context, "session:a", "turn:b");
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({
        turn_id: "turn:b",
        state: "queued",
      });
    });

    it("the unfinished Turn is the session's active one, through every state and Turn after Turn; a lease records its holder on it", async () => {
      await createSession(context, "session:a");
      const activeOf = async () => ({
        active_turn_id: await context.store.getActiveTurnId("session:a"),
        turn_id: (await context.store.getActiveTurn("session:a"))?.turn_id ?? null,
      });
      for (const turn_id of ["turn:a", "turn:b", "turn:c"]) {
        await enqueuePrompt(context, "session:a", turn_id);
        expect(await activeOf()).toEqual({ active_turn_id: turn_id, turn_id });
        const lease = await context.leases.acquire("session:a");
        if (!lease) throw new Error("session:a is leased");
        expect(await context.store.getActiveTurn("session:a")).toMatchObject({
          turn_id,
          state: "queued",
          holder: expect.any(String),
          epoch: lease.epoch,
        });
        await progress(context, "session:a", turn_id, "running", lease.epoch);
        // A prompt while the Turn runs joins it: no other Turn becomes active.
        await enqueuePrompt(context, "session:a", `${turn_id}:joined`);
        await progress(context, "session:a", turn_id, "waiting", lease.epoch);
        expect(await activeOf()).toEqual({ active_turn_id: turn_id, turn_id });
        await context.store.commit({
          session_id: "session:a",
          epoch: lease.epoch,
          ends_turn: { turn_id, cancel_queued_prompts: true },
        });
        await lease.release();
        expect(await activeOf()).toEqual({ active_turn_id: null, turn_id: null });
      }
    });

    it("a commit that leaves the Turn's state and epoch as they are does not write its row", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await progress(context, "session:a", "turn:a", "running");
      const running = await context.store.getActiveTurn("session:a");
      await new Promise((resolve) => setTimeout(resolve, 5));
      await progress(context, "session:a", "turn:a", "running");
      expect(await context.store.getActiveTurn("session:a")).toEqual(running);
      await progress(context, "session:a", "turn:a", "waiting");
      const waiting = await context.store.getActiveTurn("session:a");
      expect(waiting?.state).toBe("waiting");
      expect(waiting?.updated_at).toBeGreaterThan(running?.updated_at ?? Number.POSITIVE_INFINITY);
    });

    it("a fenced commit leaves the Turn row as it was", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await context.setLeaseEpoch("session:a", 3);
      await expectConflict(progress(context, "session:a", "turn:a", "running", 2), "fenced");
      expect((await context.store.getActiveTurn("session:a"))?.state).toBe("queued");
      await progress(context, "session:a", "turn:a", "running", 3);
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({ state: "running", epoch: 3 });
    });

    it("lists queued and running Turns of open sessions, least recently updated first, never waiting ones", async () => {
      for (const name of ["a", "b", "c", "d"]) await createSession(context, `session:${name}`);
      await enqueuePrompt(context, "session:a", "turn:a");
      await enqueuePrompt(context, "session:b", "turn:b");
      await enqueuePrompt(context, "session:c", "turn:c");
      await enqueuePrompt(context, "session:d", "turn:d");
      await progress(context, "session:c", "turn:c", "waiting");
      await context.store.commit({ session_id: "session:d", session_patch: { closed_at: T0 + 1 } });
      await progress(context, "session:b", "turn:b", "running");
      const all = await context.store.listTurnsNeedingDriver({ limit: 10 });
      expect(all.map((turn) => [turn.session_id, turn.state])).toEqual([
        ["session:a", "queued"],
        ["session:b", "running"],
      ]);
      expect((await context.store.listTurnsNeedingDriver({ limit: 1 })).map((turn) => turn.turn_id)).toEqual([
        "turn:a",
      ]);
    });

    it("a Turn queued less than queued_grace_ms ago needs no driver yet; a running one does", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      await enqueuePrompt(context, "session:a", "turn:a");
      await enqueuePrompt(context, "session:b", "turn:b");
      await progress(context, "session:b", "turn:b", "running");
      await enqueuePrompt(context, "session:b", "turn:ignored");
      const grace = { queued_grace_ms: 60_000 };
      expect(
        (await context.store.listTurnsNeedingDriver({ limit: 10, ...grace })).map((turn) => turn.turn_id),
      ).toEqual(["turn:b"]);
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10, ...grace })).toEqual([
        "session:b",
      ]);
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual([
        "session:a",
        "session:b",
      ]);
    });

    it("a prompt behind a waiting Turn needs no driver until the Turn runs again; a stop always does", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      await enqueuePrompt(context, "session:a", "turn:a");
      await progress(context, "session:a", "turn:a", "waiting");
      await enqueuePrompt(context, "session:a", "turn:ignored");
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual([]);
      await context.store.enqueueCommand({
        session_id: "session:b",
        command_id: "command:stop-b",
        command: { kind: "stop", input: { reason: "turn_stopped" } },
        created_at: T0,
      });
      await enqueuePrompt(context, "session:b", "turn:b");
      await progress(context, "session:b", "turn:b", "waiting");
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual(["session:b"]);
      await progress(context, "session:a", "turn:a", "running");
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual([
        "session:a",
        "session:b",
      ]);
    });

    it("a commit that claims the Turn advances the epoch and records its holder, running; the former epoch is fenced", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await context.setLeaseEpoch("session:a", 4);
      await progress(context, "session:a", "turn:a", "waiting", 4);
      const lock = await context.leases.lock("session:a");
      if (!lock) throw new Error("the lock of session:a is taken");
      // While it is locked, nobody else can lock or lease the session.
      expect(await context.leases.lock("session:a")).toBeNull();
      expect(await context.leases.acquire("session:a")).toBeNull();
      const result = await context.store.commit({
        session_id: "session:a",
        claim: { holder: lock.holder_id, turn_id: "turn:a" },
      });
      expect(result.epoch).toBe(5);
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({
        turn_id: "turn:a",
        state: "running",
        holder: lock.holder_id,
        epoch: 5,
      });
      const lease = lock.claimed(5);
      expect(lease.epoch).toBe(5);
      await expectConflict(progress(context, "session:a", "turn:a", "waiting", 4), "fenced");
      await progress(context, "session:a", "turn:a", "waiting", 5);
      // Held: a running Turn whose holder lives needs no driver.
      await progress(context, "session:a", "turn:a", "running", 5);
      expect(await context.store.listTurnsNeedingDriver({ limit: 10 })).toEqual([]);
      await lease.release();
      expect((await context.store.listTurnsNeedingDriver({ limit: 10 })).map((turn) => turn.turn_id)).toEqual(
        ["turn:a"],
      );
      // The next lease continues from the claimed epoch.
      const next = await context.leases.acquire("session:a");
      expect(next?.epoch).toBe(6);
      await next?.release();
    });

    it("a claim released unused wrote nothing", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      const lock = await context.leases.lock("session:a");
      await lock?.release();
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({ state: "queued", epoch: 0 });
      const lease = await context.leases.acquire("session:a");
      expect(lease?.epoch).toBe(1);
      await lease?.release();
    });

    it("a commit that both claims and carries an epoch is refused as invalid_input", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await expectParleyCode(
        context.store.commit({
          session_id: "session:a",
          epoch: 0,
          claim: { holder: "h", turn_id: "turn:a" },
        }),
        "invalid_input",
      );
    });
  });
}
