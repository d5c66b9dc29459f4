import { describe, expect, it } from "vitest";
import type { TurnResult } from "../../schema/session.js";
import {
  initialTurnState,
  isFinishCommitted,
  type TurnEffect,
  type TurnEvent,
  type TurnState,
  type TurnTransition,
  transitionTurn,
} from "./turn-lifecycle.js";

const running = (park_check = false, released = false, in_grace = false): TurnState => ({
  kind: "running",
  park_check,
  in_grace,
  released,
});
const failing = (released = false): TurnState => ({ kind: "failing", released });
const stopping = (released = false): TurnState => ({ kind: "stopping", reason: "turn_stopped", released });
const finished = (released = false): TurnState => ({ kind: "finished", released });
const ended = (
  why: "finished" | "abandoned" | "parked",
  finish_committed = why === "finished",
  released = false,
): TurnState => ({ kind: "ended", why, finish_committed, released });

const completed: TurnResult = { turn_id: "turn:a", text: "done", success: true };
const stoppedResult: TurnResult = { turn_id: "turn:a", text: "", success: false, error: "Turn stopped" };

/** A stop's whole way: abort, unwind to the stopped finish, deliver it. */
const stopUnwound: TurnEffect[] = [
  { kind: "abort", why: "stopped" },
  { kind: "write_stopped_finish", reason: "turn_stopped" },
  { kind: "settle", result: stoppedResult },
];

const unchanged = (state: TurnState): TurnTransition => ({ state, effects: [] });

/** The state after a sequence of events, with every effect asked for on the way. */
function run(state: TurnState, events: TurnEvent[]): TurnTransition {
  const effects: TurnEffect[] = [];
  let current = state;
  for (const event of events) {
    const next = transitionTurn(current, event);
    current = next.state;
    effects.push(...next.effects);
  }
  return { state: current, effects };
}

const gaveUp = (why: "abandoned" | "parked"): TurnEffect[] => [
  { kind: "abort", why },
  { kind: "forget_waiters" },
  { kind: "settle_given_up", why },
];

describe("the Turn lifecycle: how a Turn ends", () => {
  it("a Turn starts running, with no park check scheduled and its lease held", () => {
    expect(initialTurnState).toEqual(running());
    expect(isFinishCommitted(initialTurnState)).toBe(false);
  });

  it("stop: a running Turn aborts and unwinds to its stopped finish; any other state ignores it", () => {
    expect(transitionTurn(running(true), { kind: "stop", reason: "turn_stopped" })).toEqual({
      state: stopping(),
      effects: [{ kind: "abort", why: "stopped" }],
    });
    for (const state of [
      failing(),
      stopping(),
      finished(),
      ended("finished"),
      ended("abandoned"),
      ended("parked"),
    ]) {
      expect(transitionTurn(state, { kind: "stop", reason: "session_disposed" })).toEqual(unchanged(state));
    }
  });

  it("abandon: a running or failing Turn gives up without writing; a stop, a committed finish or an end wins", () => {
    expect(transitionTurn(running(true), { kind: "abandon" })).toEqual({
      state: ended("abandoned"),
      effects: gaveUp("abandoned"),
    });
    expect(transitionTurn(failing(), { kind: "abandon" })).toEqual({
      state: ended("abandoned"),
      effects: gaveUp("abandoned"),
    });
    for (const state of [stopping(), finished(), ended("finished"), ended("abandoned"), ended("parked")]) {
      expect(transitionTurn(state, { kind: "abandon" })).toEqual(unchanged(state));
    }
  });

  it("the loop exits: a stopping Turn writes its stopped finish, a running one that threw its failed finish", () => {
    expect(transitionTurn(stopping(), { kind: "loop_exited", threw: true })).toEqual({
      state: stopping(),
      effects: [{ kind: "write_stopped_finish", reason: "turn_stopped" }],
    });
    expect(transitionTurn(stopping(), { kind: "loop_exited", threw: false })).toEqual({
      state: stopping(),
      effects: [{ kind: "write_stopped_finish", reason: "turn_stopped" }],
    });
    expect(transitionTurn(running(), { kind: "loop_exited", threw: true })).toEqual({
      state: failing(),
      effects: [{ kind: "write_failed_finish" }],
    });
    expect(transitionTurn(running(), { kind: "loop_exited", threw: false })).toEqual(unchanged(running()));
    expect(transitionTurn(finished(), { kind: "loop_exited", threw: true })).toEqual({
      state: finished(),
      effects: [{ kind: "write_failed_finish" }],
    });
    expect(transitionTurn(finished(), { kind: "loop_exited", threw: false })).toEqual(unchanged(finished()));
    for (const state of [failing(), ended("finished"), ended("abandoned"), ended("parked")]) {
      expect(transitionTurn(state, { kind: "loop_exited", threw: true })).toEqual(unchanged(state));
    }
  });

  it("a committed finish makes the session read idle, from whatever state wrote it", () => {
    for (const state of [running(), failing(), stopping(), finished()]) {
      const next = transitionTurn(state, { kind: "finish_committed" });
      expect(next).toEqual(unchanged(finished()));
      expect(isFinishCommitted(next.state)).toBe(true);
    }
    // A completed finish whose commit lands after the lease was lost still was committed.
    expect(transitionTurn(ended("abandoned"), { kind: "finish_committed" })).toEqual(
      unchanged(ended("abandoned", true)),
    );
  });

  it("the written end is delivered once; a Turn that gave up already delivered its own", () => {
    expect(transitionTurn(finished(), { kind: "finish_written", result: completed })).toEqual({
      state: ended("finished", true),
      effects: [{ kind: "settle", result: completed }],
    });
    // Writing the end failed (logged): the result is still delivered, nothing reads as committed.
    for (const state of [running(), failing(), stopping()]) {
      expect(transitionTurn(state, { kind: "finish_written", result: stoppedResult })).toEqual({
        state: ended("finished", false),
        effects: [{ kind: "settle", result: stoppedResult }],
      });
    }
    for (const state of [ended("finished"), ended("abandoned"), ended("parked")]) {
      expect(transitionTurn(state, { kind: "finish_written", result: completed })).toEqual(unchanged(state));
    }
  });

  it("release: the lease is given back once, whatever the state", () => {
    const states = [running(), failing(), stopping(), finished(), ended("finished"), ended("parked")];
    for (const state of states) {
      const first = transitionTurn(state, { kind: "release" });
      expect(first).toEqual({ state: { ...state, released: true }, effects: [{ kind: "release_lease" }] });
      expect(transitionTurn(first.state, { kind: "release" })).toEqual(unchanged(first.state));
    }
  });
});

describe("the Turn lifecycle: parking", () => {
  it("park_wanted schedules one check; a scheduled check or an ended Turn schedules none", () => {
    expect(transitionTurn(running(), { kind: "park_wanted" })).toEqual({
      state: running(true),
      effects: [{ kind: "schedule_park_check" }],
    });
    expect(transitionTurn(running(true), { kind: "park_wanted" })).toEqual(unchanged(running(true)));
    for (const state of [
      failing(),
      stopping(),
      finished(),
      ended("finished"),
      ended("abandoned"),
      ended("parked"),
    ]) {
      expect(transitionTurn(state, { kind: "park_wanted" })).toEqual(unchanged(state));
    }
  });

  it("the check: not waiting clears it, writes in flight look again, all waiting parks", () => {
    expect(
      transitionTurn(running(true), { kind: "park_checked", verdict: "not_waiting", grace: false }),
    ).toEqual(unchanged(running(false)));
    expect(
      transitionTurn(running(true), { kind: "park_checked", verdict: "writes_in_flight", grace: false }),
    ).toEqual({
      state: running(true),
      effects: [{ kind: "schedule_park_check" }],
    });
    expect(transitionTurn(running(true), { kind: "park_checked", verdict: "waiting", grace: false })).toEqual(
      {
        state: ended("parked"),
        effects: gaveUp("parked"),
      },
    );
  });

  it("with room for a grace, all waiting first waits held; when the grace is over it looks again and parks", () => {
    const held = transitionTurn(running(true), { kind: "park_checked", verdict: "waiting", grace: true });
    expect(held).toEqual({ state: running(true, false, true), effects: [{ kind: "hold_for_grace" }] });
    // A tool that ends or starts waiting meanwhile schedules nothing: the grace's end looks.
    expect(transitionTurn(held.state, { kind: "park_wanted" })).toEqual(unchanged(held.state));
    const over = transitionTurn(held.state, { kind: "grace_over" });
    expect(over).toEqual({ state: held.state, effects: [{ kind: "schedule_park_check" }] });
    // One grace per wait: still waiting, it parks, room or not.
    expect(transitionTurn(over.state, { kind: "park_checked", verdict: "waiting", grace: true })).toEqual({
      state: ended("parked"),
      effects: gaveUp("parked"),
    });
  });

  it("an answer in the grace: the grace's end finds the Turn running on, and its next wait has a grace again", () => {
    const next = run(running(true, false, true), [
      { kind: "grace_over" },
      { kind: "park_checked", verdict: "not_waiting", grace: true },
      { kind: "park_wanted" },
      { kind: "park_checked", verdict: "waiting", grace: true },
    ]);
    expect(next).toEqual({
      state: running(true, false, true),
      effects: [{ kind: "schedule_park_check" }, { kind: "schedule_park_check" }, { kind: "hold_for_grace" }],
    });
  });

  it("a grace over after the Turn ended or was stopped does nothing", () => {
    for (const state of [stopping(), finished(), ended("finished"), ended("abandoned"), running()]) {
      expect(transitionTurn(state, { kind: "grace_over" })).toEqual(unchanged(state));
    }
  });

  it("a park check racing an answer: the committed answer reads not parked, so the Turn runs on", () => {
    const next = run(running(), [
      { kind: "park_wanted" },
      { kind: "park_checked", verdict: "not_waiting", grace: false },
      { kind: "park_wanted" },
    ]);
    expect(next).toEqual({
      state: running(true),
      effects: [{ kind: "schedule_park_check" }, { kind: "schedule_park_check" }],
    });
  });

  it("a lease lost while a park check is scheduled: the Turn is abandoned and the check finds nothing to do", () => {
    expect(
      run(running(), [
        { kind: "park_wanted" },
        { kind: "abandon" },
        { kind: "park_checked", verdict: "waiting", grace: false },
      ]),
    ).toEqual({
      state: ended("abandoned"),
      effects: [{ kind: "schedule_park_check" }, ...gaveUp("abandoned")],
    });
  });

  it("a lease lost once parked changes nothing; the host then releases the lease once", () => {
    expect(
      run(running(true), [
        { kind: "park_checked", verdict: "waiting", grace: false },
        { kind: "abandon" },
        { kind: "release" },
        { kind: "release" },
      ]),
    ).toEqual({
      state: ended("parked", false, true),
      effects: [...gaveUp("parked"), { kind: "release_lease" }],
    });
  });

  it("a stop racing a scheduled park check: the stop wins and the check finds nothing to do", () => {
    expect(
      run(running(true), [
        { kind: "stop", reason: "turn_stopped" },
        { kind: "park_checked", verdict: "waiting", grace: false },
      ]),
    ).toEqual({ state: stopping(), effects: [{ kind: "abort", why: "stopped" }] });
  });
});

describe("the Turn lifecycle: races at its end", () => {
  it("a stop during the completed finish's commit: the commit wins and no stopped finish is written", () => {
    expect(
      run(running(), [
        { kind: "stop", reason: "turn_stopped" },
        { kind: "finish_committed" },
        { kind: "finish_written", result: completed },
        { kind: "loop_exited", threw: false },
      ]),
    ).toEqual({
      state: ended("finished", true),
      effects: [
        { kind: "abort", why: "stopped" },
        { kind: "settle", result: completed },
      ],
    });
  });

  it("a stop during a completed finish a queued prompt refused: the loop unwinds to the stopped finish", () => {
    expect(
      run(running(), [
        { kind: "stop", reason: "turn_stopped" },
        { kind: "loop_exited", threw: true },
        { kind: "finish_committed" },
        { kind: "finish_written", result: stoppedResult },
      ]),
    ).toEqual({
      state: ended("finished", true),
      effects: stopUnwound,
    });
  });

  it("a stop during the failed finish's commit changes nothing: the failed finish is delivered", () => {
    const failed: TurnResult = { turn_id: "turn:a", text: "", success: false, error: "boom" };
    expect(
      run(running(), [
        { kind: "loop_exited", threw: true },
        { kind: "stop", reason: "turn_stopped" },
        { kind: "finish_committed" },
        { kind: "finish_written", result: failed },
      ]),
    ).toEqual({
      state: ended("finished", true),
      effects: [{ kind: "write_failed_finish" }, { kind: "settle", result: failed }],
    });
  });

  it("a lease lost after the finish committed: the committed finish is what the Turn delivers", () => {
    expect(
      run(running(), [
        { kind: "finish_committed" },
        { kind: "abandon" },
        { kind: "finish_written", result: completed },
      ]),
    ).toEqual({ state: ended("finished", true), effects: [{ kind: "settle", result: completed }] });
  });

  it("a lease lost while stopping: the stopped finish is still attempted (its writes are fenced)", () => {
    expect(
      run(running(), [
        { kind: "stop", reason: "turn_stopped" },
        { kind: "abandon" },
        { kind: "loop_exited", threw: true },
        { kind: "finish_written", result: stoppedResult },
      ]),
    ).toEqual({
      state: ended("finished", false),
      effects: stopUnwound,
    });
  });

  it("abandoned at shutdown, then released by the host's turn_ended and its abandon_turn: released once", () => {
    expect(run(running(), [{ kind: "abandon" }, { kind: "release" }, { kind: "release" }])).toEqual({
      state: ended("abandoned", false, true),
      effects: [...gaveUp("abandoned"), { kind: "release_lease" }],
    });
  });
});
