import { describe, expect, it } from "vitest";
import { initialHostState, ownsTurn } from "./host-lifecycle.js";
import {
  idle,
  other,
  run,
  running,
  send,
  shutDown,
  starting,
  type Turn,
  turn,
  unchanged,
} from "./host-lifecycle-fixtures.js";

describe("the host lifecycle: queued commands need a driver", () => {
  it("a host starts idle, open or closed", () => {
    expect(initialHostState<Turn>(false)).toEqual(idle());
    expect(initialHostState<Turn>(true)).toEqual(idle(true));
  });

  it("wake: idle reads the queue; a running Turn reads its queued stop; otherwise nothing", () => {
    expect(send(idle(), { kind: "wake" })).toEqual({
      state: starting("queue"),
      effects: [{ kind: "read_queue" }],
    });
    expect(send(running(), { kind: "wake" })).toEqual({
      state: running(),
      effects: [{ kind: "apply_queued_stop" }],
    });
    expect(send(idle(true), { kind: "wake" })).toEqual(unchanged(idle(true)));
    for (const purpose of ["claim", "take_over", "stop"] as const) {
      expect(send(starting(purpose), { kind: "wake" })).toEqual(unchanged(starting(purpose)));
    }
    expect(send(shutDown(), { kind: "wake" })).toEqual(unchanged(shutDown()));
  });

  it("wake for a prompt that started a Turn here: idle takes the lease without reading the queue", () => {
    expect(send(idle(), { kind: "wake", prompt_started: true })).toEqual({
      state: starting("queue"),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(running(), { kind: "wake", prompt_started: true })).toEqual({
      state: running(),
      effects: [{ kind: "apply_queued_stop" }],
    });
    expect(send(idle(true), { kind: "wake", prompt_started: true })).toEqual(unchanged(idle(true)));
    expect(send(starting("claim"), { kind: "wake", prompt_started: true })).toEqual(
      unchanged(starting("claim")),
    );
  });

  it("a prompt arriving while starting adds no second start; the start under way notes it", () => {
    const first = send(idle(), { kind: "wake" });
    const second = send(first.state, { kind: "wake" });
    expect(second).toEqual({ state: { ...starting("queue"), woken: true }, effects: [] });
  });

  it("woken while it read the queue: a read that found nothing reads once more (the prompt may be committed after it)", () => {
    const woken = { ...starting("queue"), woken: true as const };
    expect(send(woken, { kind: "queue_read", has_work: false })).toEqual({
      state: starting("queue"),
      effects: [{ kind: "read_queue" }],
    });
    // The second read found nothing either: nothing is queued.
    expect(send(starting("queue"), { kind: "queue_read", has_work: false })).toEqual(unchanged(idle()));
    expect(send(woken, { kind: "queue_read", has_work: true })).toEqual({
      state: woken,
      effects: [{ kind: "acquire_lease" }],
    });
  });

  it("the queue read: work takes the lease, no work goes back to idle", () => {
    expect(send(starting("queue"), { kind: "queue_read", has_work: true })).toEqual({
      state: starting("queue"),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(starting("queue"), { kind: "queue_read", has_work: false })).toEqual(unchanged(idle()));
    expect(send(shutDown(), { kind: "queue_read", has_work: true })).toEqual(unchanged(shutDown()));
  });

  it("the lease acquired: each purpose does its own work with it; a claim hands it to its caller", () => {
    expect(send(starting("queue"), { kind: "lease_acquired" })).toEqual({
      state: starting("queue"),
      effects: [{ kind: "drive" }],
    });
    expect(send(starting("stop"), { kind: "lease_acquired" })).toEqual({
      state: starting("stop"),
      effects: [{ kind: "drive" }],
    });
    expect(send(starting("take_over"), { kind: "lease_acquired" })).toEqual({
      state: starting("take_over"),
      effects: [{ kind: "read_open_turn" }],
    });
    expect(send(starting("claim"), { kind: "lease_acquired" })).toEqual(unchanged(starting("claim")));
  });

  it("the lease refused (another live holder, or the acquisition failed): back to idle, nothing held", () => {
    for (const purpose of ["queue", "claim", "take_over", "stop"] as const) {
      expect(send(starting(purpose), { kind: "lease_refused" })).toEqual(unchanged(idle()));
      expect(send(starting(purpose, true), { kind: "lease_refused" })).toEqual(unchanged(idle(true)));
    }
    expect(send(shutDown(), { kind: "lease_refused" })).toEqual(unchanged(shutDown()));
  });

  it("a Turn started with the lease runs here, closed or not", () => {
    for (const purpose of ["queue", "claim", "take_over", "stop"] as const) {
      expect(send(starting(purpose), { kind: "turn_started", turn })).toEqual(unchanged(running()));
    }
    expect(send(starting("take_over", true), { kind: "turn_started", turn })).toEqual(
      unchanged(running(true)),
    );
  });

  it("a Turn cannot start without a start under way", () => {
    expect(() => send(idle(), { kind: "turn_started", turn })).toThrow(
      "A Turn cannot start while the host is idle",
    );
    expect(() => send(running(), { kind: "turn_started", turn: other })).toThrow(
      "A Turn cannot start while the host is running",
    );
  });

  it("nothing to drive gives the lease back; after a take-over, a queued prompt may start", () => {
    for (const purpose of ["queue", "stop", "claim"] as const) {
      expect(send(starting(purpose), { kind: "nothing_to_drive" })).toEqual({
        state: idle(),
        effects: [{ kind: "release_lease" }],
      });
    }
    expect(send(starting("take_over"), { kind: "nothing_to_drive" })).toEqual({
      state: idle(),
      effects: [{ kind: "release_lease" }, { kind: "start_next" }],
    });
    expect(send(starting("take_over", true), { kind: "nothing_to_drive" })).toEqual({
      state: idle(true),
      effects: [{ kind: "release_lease" }],
    });
  });

  it("a failed start releases the lease it took; a Turn already running releases its own when it ends", () => {
    for (const purpose of ["queue", "claim", "take_over", "stop"] as const) {
      expect(send(starting(purpose), { kind: "start_failed" })).toEqual({
        state: idle(),
        effects: [{ kind: "release_lease" }],
      });
    }
    expect(send(running(), { kind: "start_failed" })).toEqual(unchanged(running()));
    expect(send(idle(), { kind: "start_failed" })).toEqual(unchanged(idle()));
  });

  it("a failed lease acquisition takes nothing and holds nothing: the next wake starts again", () => {
    const failed = run(idle(), [
      { kind: "wake" },
      { kind: "queue_read", has_work: true },
      { kind: "lease_refused" },
    ]);
    expect(failed).toEqual({ state: idle(), effects: [{ kind: "read_queue" }, { kind: "acquire_lease" }] });
    expect(ownsTurn(failed.state)).toBe(false);
    expect(send(failed.state, { kind: "wake" }).effects).toEqual([{ kind: "read_queue" }]);
  });
});

describe("the host lifecycle: a Turn ends, parks, and is answered", () => {
  it("a Turn that ended gives its lease back and lets a queued prompt start", () => {
    expect(send(running(), { kind: "turn_ended", turn, parked: false })).toEqual({
      state: idle(),
      effects: [{ kind: "forget_waiters" }, { kind: "release_lease" }, { kind: "start_next" }],
    });
  });

  it("a Turn that ended in a closed session starts nothing after it", () => {
    expect(send(running(true), { kind: "turn_ended", turn, parked: false })).toEqual({
      state: idle(true),
      effects: [{ kind: "forget_waiters" }, { kind: "release_lease" }],
    });
  });

  it("a parked Turn gives its lease back through release_parked (release, then read again)", () => {
    expect(send(running(), { kind: "turn_ended", turn, parked: true })).toEqual({
      state: idle(),
      effects: [{ kind: "forget_waiters" }, { kind: "release_parked" }],
    });
  });

  it("only the Turn running here ends here (a second report, or another Turn's, changes nothing)", () => {
    expect(send(running(), { kind: "turn_ended", turn: other, parked: false })).toEqual(unchanged(running()));
    expect(send(idle(), { kind: "turn_ended", turn, parked: false })).toEqual(unchanged(idle()));
    expect(send(starting("queue"), { kind: "turn_ended", turn, parked: true })).toEqual(
      unchanged(starting("queue")),
    );
  });

  it("a Turn found parked while starting: its lease goes back through release_parked", () => {
    for (const purpose of ["queue", "take_over"] as const) {
      expect(send(starting(purpose), { kind: "parked_found" })).toEqual({
        state: idle(),
        effects: [{ kind: "release_parked" }],
      });
    }
  });

  it("after a parked release (or an answer committed elsewhere), an idle open host reads the Turn again", () => {
    expect(send(idle(), { kind: "recheck_parked" })).toEqual({
      state: idle(),
      effects: [{ kind: "reread_turn" }],
    });
    expect(send(idle(true), { kind: "recheck_parked" })).toEqual(unchanged(idle(true)));
    expect(send(running(), { kind: "recheck_parked" })).toEqual(unchanged(running()));
    expect(send(shutDown(), { kind: "recheck_parked" })).toEqual(unchanged(shutDown()));
  });

  it("an answer arriving here while parking: its claim takes the lease, so the recheck leaves the Turn to it", () => {
    const parking = send(running(), { kind: "turn_ended", turn, parked: true });
    const claimed = send(parking.state, { kind: "claim" });
    expect(claimed).toEqual({ state: starting("claim"), effects: [{ kind: "acquire_lease" }] });
    expect(send(claimed.state, { kind: "recheck_parked" })).toEqual(unchanged(starting("claim")));
  });

  it("an answer arriving while parking whose claim is refused (the lease not yet given back): the recheck reads again", () => {
    const parking = send(running(), { kind: "turn_ended", turn, parked: true });
    const refused = run(parking.state, [{ kind: "claim" }, { kind: "lease_refused" }]);
    expect(refused.state).toEqual(idle());
    expect(send(refused.state, { kind: "recheck_parked" }).effects).toEqual([{ kind: "reread_turn" }]);
  });
});

describe("the host lifecycle: claims and take-overs", () => {
  it("a claim takes the lease only from idle", () => {
    expect(send(idle(), { kind: "claim" })).toEqual({
      state: starting("claim"),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(idle(true), { kind: "claim" })).toEqual({
      state: starting("claim", true),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(running(), { kind: "claim" })).toEqual(unchanged(running()));
    expect(send(starting("queue"), { kind: "claim" })).toEqual(unchanged(starting("queue")));
    expect(send(shutDown(), { kind: "claim" })).toEqual(unchanged(shutDown()));
  });

  it("a claim given back releases its lease, reads the parked Turn again and lets a queued prompt start (not in a closed session)", () => {
    expect(send(starting("claim"), { kind: "unclaim" })).toEqual({
      state: idle(),
      effects: [{ kind: "release_parked" }, { kind: "start_next" }],
    });
    expect(send(starting("claim", true), { kind: "unclaim" })).toEqual({
      state: idle(true),
      effects: [{ kind: "release_parked" }],
    });
    expect(send(starting("claim"), { kind: "unclaim", drive_queue: false })).toEqual({
      state: idle(),
      effects: [{ kind: "release_parked" }],
    });
    expect(send(shutDown(), { kind: "unclaim" })).toEqual({
      state: shutDown(),
      effects: [{ kind: "release_lease" }],
    });
  });

  it("a claim handed to a take-over reads the open Turn with it", () => {
    expect(send(starting("claim"), { kind: "take_over", with_lease: true })).toEqual({
      state: starting("take_over"),
      effects: [{ kind: "read_open_turn" }],
    });
  });

  it("a take-over with a lease that cannot be used releases it", () => {
    for (const state of [idle(), running(), starting("queue"), shutDown()]) {
      expect(send(state, { kind: "take_over", with_lease: true })).toEqual({
        state,
        effects: [{ kind: "release_lease" }],
      });
    }
  });

  it("a take-over without a lease takes one only from idle (a closed session's Turn too)", () => {
    expect(send(idle(), { kind: "take_over", with_lease: false })).toEqual({
      state: starting("take_over"),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(idle(true), { kind: "take_over", with_lease: false })).toEqual({
      state: starting("take_over", true),
      effects: [{ kind: "acquire_lease" }],
    });
    for (const state of [running(), starting("claim"), shutDown()]) {
      expect(send(state, { kind: "take_over", with_lease: false })).toEqual(unchanged(state));
    }
  });
});
