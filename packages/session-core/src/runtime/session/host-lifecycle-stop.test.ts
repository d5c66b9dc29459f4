import { describe, expect, it } from "vitest";
import { ownsTurn, turnOf } from "./host-lifecycle.js";
import { idle, run, running, send, shutDown, starting, turn, unchanged } from "./host-lifecycle-fixtures.js";

describe("the host lifecycle: stop, close and shutdown", () => {
  it("stop: a Turn running here is stopped; idle drives the stop with the lease; a start under way is waited for", () => {
    expect(send(running(), { kind: "stop_requested", reason: "turn_stopped" })).toEqual({
      state: running(),
      effects: [{ kind: "stop_turn", reason: "turn_stopped" }],
    });
    expect(send(idle(), { kind: "stop_requested", reason: "turn_stopped" })).toEqual({
      state: starting("stop"),
      effects: [{ kind: "acquire_lease" }],
    });
    expect(send(shutDown(), { kind: "stop_requested", reason: "turn_stopped" })).toEqual(
      unchanged(shutDown()),
    );
  });

  it("stop while starting: nothing more now; the start under way reads the queued stop", () => {
    for (const purpose of ["queue", "claim", "take_over", "stop"] as const) {
      expect(send(starting(purpose), { kind: "stop_requested", reason: "turn_stopped" })).toEqual(
        unchanged(starting(purpose)),
      );
    }
  });

  it("a stop driven here with nothing open: the queue is cancelled and the lease given back", () => {
    expect(
      run(idle(), [
        { kind: "stop_requested", reason: "turn_stopped" },
        { kind: "lease_acquired" },
        { kind: "nothing_to_drive" },
      ]),
    ).toEqual({
      state: idle(),
      effects: [{ kind: "acquire_lease" }, { kind: "drive" }, { kind: "release_lease" }],
    });
  });

  it("close while running: the session is closed, the Turn runs until its stop, and nothing starts after it", () => {
    const closed = send(running(), { kind: "close" });
    expect(closed).toEqual(unchanged(running(true)));
    expect(send(closed.state, { kind: "stop_requested", reason: "session_disposed" }).effects).toEqual([
      { kind: "stop_turn", reason: "session_disposed" },
    ]);
    expect(send(closed.state, { kind: "turn_ended", turn, parked: false })).toEqual({
      state: idle(true),
      effects: [{ kind: "forget_waiters" }, { kind: "release_lease" }],
    });
  });

  it("close keeps every other state and marks it closed", () => {
    expect(send(idle(), { kind: "close" })).toEqual(unchanged(idle(true)));
    expect(send(starting("queue"), { kind: "close" })).toEqual(unchanged(starting("queue", true)));
    expect(send(shutDown(), { kind: "close" })).toEqual(unchanged({ ...shutDown(), closed: true }));
  });

  it("closed by another process: a Turn running here stops, disposed", () => {
    expect(send(running(), { kind: "closed_elsewhere" })).toEqual({
      state: running(true),
      effects: [{ kind: "stop_turn", reason: "session_disposed" }],
    });
    expect(send(idle(), { kind: "closed_elsewhere" })).toEqual(unchanged(idle(true)));
    expect(send(starting("claim"), { kind: "closed_elsewhere" })).toEqual(unchanged(starting("claim", true)));
  });

  it("shutdown abandons the Turn running here; it then ends here and releases its lease", () => {
    const down = send(running(), { kind: "shutdown" });
    expect(down).toEqual({ state: shutDown(turn), effects: [{ kind: "abandon_turn" }] });
    expect(ownsTurn(down.state)).toBe(true);
    expect(send(down.state, { kind: "turn_ended", turn, parked: false })).toEqual({
      state: shutDown(),
      effects: [{ kind: "forget_waiters" }, { kind: "release_lease" }],
    });
    expect(send(down.state, { kind: "shutdown" })).toEqual(unchanged(down.state));
  });

  it("shutdown from idle or starting holds nothing", () => {
    expect(send(idle(), { kind: "shutdown" })).toEqual(unchanged(shutDown()));
    expect(send(starting("queue"), { kind: "shutdown" })).toEqual(unchanged(shutDown()));
  });

  it("a start interrupted by shutdown gives back what it took and runs nothing", () => {
    expect(send(shutDown(), { kind: "lease_acquired" })).toEqual({
      state: shutDown(),
      effects: [{ kind: "release_lease" }],
    });
    expect(send(shutDown(), { kind: "start_failed" })).toEqual({
      state: shutDown(),
      effects: [{ kind: "release_lease" }],
    });
    expect(send(shutDown(), { kind: "parked_found" })).toEqual({
      state: shutDown(),
      effects: [{ kind: "release_lease" }],
    });
    expect(send(shutDown(), { kind: "nothing_to_drive" })).toEqual({
      state: shutDown(),
      effects: [{ kind: "release_lease" }],
    });
    expect(send(shutDown(), { kind: "turn_started", turn })).toEqual({
      state: shutDown(turn),
      effects: [{ kind: "abandon_turn" }],
    });
  });
});

describe("the host lifecycle: what the host reads from its state", () => {
  it("turnOf and ownsTurn", () => {
    expect(turnOf(idle())).toBeUndefined();
    expect(turnOf(starting("queue"))).toBeUndefined();
    expect(turnOf(running())).toBe(turn);
    expect(turnOf(shutDown(turn))).toBe(turn);
    expect(ownsTurn(idle())).toBe(false);
    expect(ownsTurn(starting("claim"))).toBe(true);
    expect(ownsTurn(running())).toBe(true);
    expect(ownsTurn(shutDown())).toBe(false);
  });
});
