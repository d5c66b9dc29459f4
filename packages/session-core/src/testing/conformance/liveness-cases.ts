import { describe, expect, it } from "vitest";
import type { WorkNeedingDriver, WorkNeedingDriverQuery } from "../../ports/session-store.js";
import type { TurnLease } from "../../ports/turn-lease.js";
import { T0 } from "../fixtures.js";
import { type ConformanceContext, createSession, enqueuePrompt, progress } from "./context.js";

let counter = 0;

function enqueueStop(context: ConformanceContext, session_id: string) {
  counter += 1;
  return context.store.enqueueCommand({
    session_id,
    command_id: `command:stop-${counter}`,
    command: { kind: "stop", input: { reason: "turn_stopped" } },
    created_at: T0 + counter,
  });
}

/** A session whose Turn `turn:<name>` runs (no lease taken) with a prompt queued behind it. */
async function runningWithQueuedPrompt(context: ConformanceContext, name: string): Promise<void> {
  await createSession(context, `session:${name}`);
  await enqueuePrompt(context, `session:${name}`, `turn:${name}`);
  await progress(context, `session:${name}`, `turn:${name}`, "running");
  await enqueuePrompt(context, `session:${name}`, "turn:joins");
}

async function holdLease(context: ConformanceContext, session_id: string): Promise<TurnLease> {
  const lease = await context.leases.acquire(session_id);
  if (!lease) throw new Error(`the lease of ${session_id} is taken`);
  return lease;
}

/** The pass's reading, Turns as `[session_id, turn_id, state]`. */
async function readWork(context: ConformanceContext, query: WorkNeedingDriverQuery) {
  const work = await context.store.listWorkNeedingDriver(query);
  return {
    turns: work.turns.map((turn) => [turn.session_id, turn.turn_id, turn.state]),
    command_session_ids: work.command_session_ids,
  };
}

/** What the two lists it stands for return now (`listWorkNeedingDriver`'s contract). */
async function readBothLists(
  context: ConformanceContext,
  query: WorkNeedingDriverQuery,
): Promise<WorkNeedingDriver> {
  const { queued_grace_ms } = query;
  return {
    turns: await context.store.listTurnsNeedingDriver({ limit: query.turn_limit, queued_grace_ms }),
    command_session_ids: await context.store.listSessionsWithQueuedCommands({
      limit: query.command_session_limit,
      queued_grace_ms,
    }),
  };
}

/** The liveness pass's one read (DESIGN §10.7): Turns with no live holder, commands nobody drives. */
export function describeLivenessConformance(context: ConformanceContext): void {
  describe("work needing a driver", () => {
    it("lists unheld queued and running Turns, and the sessions whose stop or drivable prompt waits", async () => {
      // a: a queued Turn (its prompt counts too). b: running, a prompt queued behind it.
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await runningWithQueuedPrompt(context, "b");
      // c: a prompt behind a waiting Turn wakes nothing.
      await createSession(context, "session:c");
      await enqueuePrompt(context, "session:c", "turn:c");
      await progress(context, "session:c", "turn:c", "waiting");
      await enqueuePrompt(context, "session:c", "turn:joins");
      // d: running with a stop queued, its lease held: the stop needs a driver, the Turn does not.
      await createSession(context, "session:d");
      await enqueuePrompt(context, "session:d", "turn:d");
      await progress(context, "session:d", "turn:d", "running");
      await enqueueStop(context, "session:d");
      // e: finished, nothing queued.
      await createSession(context, "session:e");
      await enqueuePrompt(context, "session:e", "turn:e");
      await progress(context, "session:e", "turn:e", "running");
      await context.store.commit({
        session_id: "session:e",
        ends_turn: { turn_id: "turn:e", cancel_queued_prompts: true },
      });
      // f: closed, with a running Turn and a stop: never driven.
      await createSession(context, "session:f");
      await enqueuePrompt(context, "session:f", "turn:f");
      await progress(context, "session:f", "turn:f", "running");
      await enqueueStop(context, "session:f");
      await context.store.commit({ session_id: "session:f", session_patch: { closed_at: T0 + 1 } });
      // g: waiting, with a stop: the stop needs a driver.
      await createSession(context, "session:g");
      await enqueuePrompt(context, "session:g", "turn:g");
      await progress(context, "session:g", "turn:g", "waiting");
      await enqueueStop(context, "session:g");
      // h: running with a prompt queued behind it, its lease held.
      await runningWithQueuedPrompt(context, "h");
      const leaseOfD = await holdLease(context, "session:d");
      const leaseOfH = await holdLease(context, "session:h");

      const query = { turn_limit: 10, command_session_limit: 10 };
      expect(await readWork(context, query)).toEqual({
        turns: [
          ["session:a", "turn:a", "queued"],
          ["session:b", "turn:b", "running"],
        ],
        command_session_ids: ["session:a", "session:b", "session:d", "session:g", "session:h"],
      });
      expect(await context.store.listWorkNeedingDriver(query)).toEqual(await readBothLists(context, query));

      // Their holder is gone: d's and h's Turns need a driver too (least recently updated last).
      await leaseOfD.release();
      await leaseOfH.release();
      expect(await readWork(context, query)).toEqual({
        turns: [
          ["session:a", "turn:a", "queued"],
          ["session:b", "turn:b", "running"],
          ["session:d", "turn:d", "running"],
          ["session:h", "turn:h", "running"],
        ],
        command_session_ids: ["session:a", "session:b", "session:d", "session:g", "session:h"],
      });
      expect(await context.store.listWorkNeedingDriver(query)).toEqual(await readBothLists(context, query));
    });

    it("cuts each list at its own limit; the commands' next page follows the first", async () => {
      for (const name of ["a", "b", "c"]) await runningWithQueuedPrompt(context, name);
      expect(await readWork(context, { turn_limit: 2, command_session_limit: 1 })).toEqual({
        turns: [
          ["session:a", "turn:a", "running"],
          ["session:b", "turn:b", "running"],
        ],
        command_session_ids: ["session:a"],
      });
      expect(await readWork(context, { turn_limit: 0, command_session_limit: 3 })).toEqual({
        turns: [],
        command_session_ids: ["session:a", "session:b", "session:c"],
      });
      expect(await context.store.listSessionsWithQueuedCommands({ after: "session:a", limit: 10 })).toEqual([
        "session:b",
        "session:c",
      ]);
    });

    it("a Turn queued less than queued_grace_ms ago counts in neither list; a running Turn and a stop do", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      await runningWithQueuedPrompt(context, "b");
      await createSession(context, "session:c");
      await enqueuePrompt(context, "session:c", "turn:c");
      await progress(context, "session:c", "turn:c", "waiting");
      await enqueueStop(context, "session:c");

      const graced = { turn_limit: 10, command_session_limit: 10, queued_grace_ms: 60_000 };
      expect(await readWork(context, graced)).toEqual({
        turns: [["session:b", "turn:b", "running"]],
        command_session_ids: ["session:b", "session:c"],
      });
      expect(await context.store.listWorkNeedingDriver(graced)).toEqual(await readBothLists(context, graced));
      expect(await readWork(context, { turn_limit: 10, command_session_limit: 10 })).toEqual({
        turns: [
          ["session:a", "turn:a", "queued"],
          ["session:b", "turn:b", "running"],
        ],
        command_session_ids: ["session:a", "session:b", "session:c"],
      });
    });
  });
}
