import type { CancelReason } from "../../schema/interaction.js";
import type { TurnResult } from "../../schema/session.js";

/**
 * Why a Turn gave the session up here without writing its end: `abandoned` (lease lost, fenced,
 * shutdown) or `parked` (every open tool waits for a person; whoever commits an answer resumes it by
 * replay — docs/behaviour.md#durability).
 */
export type GiveUp = "abandoned" | "parked";

/** What this process's runner of a parked Turn settles with; the Turn itself goes on elsewhere. */
const TURN_PARKED = "Turn waits for a person; it resumes where the answer is committed";

/** What a Turn that gave the session up here delivers as its result. */
export const GIVEN_UP_ERROR: Record<GiveUp, string> = {
  abandoned: "Turn was taken over by another process",
  parked: TURN_PARKED,
};

/**
 * Where one Turn run by this process is in its life (docs/behaviour.md#durability):
 * - `running`: Steps run (including the commit of a completed finish, which a queued prompt may
 *   refuse); `park_check` when a check whether every open tool waits for a person is scheduled
 *   (or the Turn waits held, in its grace: `in_grace`, see `ParkGrace`);
 * - `failing`: the loop failed; the failed finish is being written;
 * - `stopping`: a stop was asked; the loop unwinds, then the stopped finish is written;
 * - `finished`: a finish (completed, failed or stopped) is committed: the session reads as idle,
 *   and the Turn's result is being delivered;
 * - `ended`: the result is delivered — `finished` (its end was written, `finish_committed` unless
 *   writing it failed) or given up (`abandoned`, `parked`: no write).
 * `released` is whether the Turn's lease was given back (once, whatever the state).
 */
export type TurnState =
  | { kind: "running"; park_check: boolean; in_grace: boolean; released: boolean }
  | { kind: "failing"; released: boolean }
  | { kind: "stopping"; reason: CancelReason; released: boolean }
  | { kind: "finished"; released: boolean }
  | { kind: "ended"; why: "finished" | GiveUp; finish_committed: boolean; released: boolean };

/** What happens to the Turn; each is sent where the runner's code learns it. */
export type TurnEvent =
  /** `stop` (a command, `close`, or a queued stop read at a checkpoint). */
  | { kind: "stop"; reason: CancelReason }
  /** The lease was lost, a write was fenced, or the process shuts down. */
  | { kind: "abandon" }
  /** A tool ended or a waiter registered, and parking is on: should the Turn park? */
  | { kind: "park_wanted" }
  /**
   * The scheduled park check looked: `not_waiting` (some running tool does not wait for a person,
   * or the committed message does not read parked — e.g. an answer was just committed),
   * `writes_in_flight` (look again once they settled), `waiting` (park now, or first wait held for
   * the grace when `grace` says there is room: see `ParkGrace`).
   */
  | { kind: "park_checked"; verdict: "not_waiting" | "writes_in_flight" | "waiting"; grace: boolean }
  /** The grace of a Turn waiting held is over: check again, and park if it still waits. */
  | { kind: "grace_over" }
  /** The Turn's loop returned (`threw: false`) or threw. */
  | { kind: "loop_exited"; threw: boolean }
  /** A finish of this Turn was committed. */
  | { kind: "finish_committed" }
  /** The runner wrote (or failed to write, and logged) the Turn's end; `result` is what it delivers. */
  | { kind: "finish_written"; result: TurnResult }
  /** Give the lease back. */
  | { kind: "release" };

/** What the runner does next; plain data, performed by `TurnRunner` in order. */
export type TurnEffect =
  /** Cancel the model request and the tools, and wake the loop so it unwinds. */
  | { kind: "abort"; why: "stopped" | GiveUp }
  /** Drop the Turn's in-process waiters. */
  | { kind: "forget_waiters" }
  /** Run the park check once the current work settled. */
  | { kind: "schedule_park_check" }
  /** Wait held for the grace (`grace_over` when it is over). */
  | { kind: "hold_for_grace" }
  | { kind: "write_failed_finish" }
  | { kind: "write_stopped_finish"; reason: CancelReason }
  /** Deliver the Turn's result (`finished` resolves; the host learns the Turn ended). */
  | { kind: "settle"; result: TurnResult }
  /** Deliver the result of a Turn that gave the session up without writing. */
  | { kind: "settle_given_up"; why: GiveUp }
  | { kind: "release_lease" };

export interface TurnTransition {
  state: TurnState;
  effects: TurnEffect[];
}

export const initialTurnState: TurnState = {
  kind: "running",
  park_check: false,
  in_grace: false,
  released: false,
};

/** A finish of the Turn is committed: the session reads as idle, whatever the runner still does. */
export function isFinishCommitted(state: TurnState): boolean {
  return state.kind === "finished" || (state.kind === "ended" && state.finish_committed);
}

function stay(state: TurnState, effects: TurnEffect[] = []): TurnTransition {
  return { state, effects };
}

function giveUp(state: TurnState, why: GiveUp): TurnTransition {
  return {
    state: { kind: "ended", why, finish_committed: false, released: state.released },
    effects: [{ kind: "abort", why }, { kind: "forget_waiters" }, { kind: "settle_given_up", why }],
  };
}

/**
 * The Turn's next state and what the runner must do (pure: no I/O, no promises). An event that
 * does not apply in a state changes nothing and asks for nothing: a committed finish wins over a
 * later stop or abandon, the first ending wins over the next, and the lease is released once.
 */
export function transitionTurn(state: TurnState, event: TurnEvent): TurnTransition {
  switch (event.kind) {
    case "stop":
      if (state.kind !== "running") return stay(state);
      return {
        state: { kind: "stopping", reason: event.reason, released: state.released },
        effects: [{ kind: "abort", why: "stopped" }],
      };
    case "abandon":
      // A failing Turn has no finish committed yet: with its lease lost it gives up at once.
      return state.kind === "running" || state.kind === "failing" ? giveUp(state, "abandoned") : stay(state);
    case "park_wanted":
      if (state.kind !== "running" || state.park_check) return stay(state);
      return { state: { ...state, park_check: true }, effects: [{ kind: "schedule_park_check" }] };
    case "grace_over":
      if (state.kind !== "running" || !state.in_grace) return stay(state);
      return stay(state, [{ kind: "schedule_park_check" }]);
    case "park_checked":
      if (state.kind !== "running") return stay(state);
      switch (event.verdict) {
        case "not_waiting":
          return stay({ ...state, park_check: false, in_grace: false });
        case "writes_in_flight":
          return stay({ ...state, park_check: true }, [{ kind: "schedule_park_check" }]);
        case "waiting":
          // One grace per wait: a Turn still waiting when its grace is over parks.
          if (event.grace && !state.in_grace) {
            return stay({ ...state, park_check: true, in_grace: true }, [{ kind: "hold_for_grace" }]);
          }
          return giveUp(state, "parked");
        default: {
          const unknown: never = event.verdict;
          throw new Error(`Unknown park verdict: ${String(unknown)}`);
        }
      }
    case "loop_exited":
      if (state.kind === "stopping") {
        return stay(state, [{ kind: "write_stopped_finish", reason: state.reason }]);
      }
      if (!event.threw) return stay(state);
      if (state.kind === "running") {
        return {
          state: { kind: "failing", released: state.released },
          effects: [{ kind: "write_failed_finish" }],
        };
      }
      // The completed finish was committed but its commit still threw: the failure is recorded and
      // delivered, so that `finished` resolves.
      return state.kind === "finished" ? stay(state, [{ kind: "write_failed_finish" }]) : stay(state);
    case "finish_committed":
      if (state.kind === "ended") return stay({ ...state, finish_committed: true });
      return stay({ kind: "finished", released: state.released });
    case "finish_written":
      if (state.kind === "ended") return stay(state);
      return {
        state: {
          kind: "ended",
          why: "finished",
          finish_committed: state.kind === "finished",
          released: state.released,
        },
        effects: [{ kind: "settle", result: event.result }],
      };
    case "release":
      return state.released ? stay(state) : stay({ ...state, released: true }, [{ kind: "release_lease" }]);
    default: {
      const unknown: never = event;
      throw new Error(`Unknown turn event: ${JSON.stringify(unknown)}`);
    }
  }
}
