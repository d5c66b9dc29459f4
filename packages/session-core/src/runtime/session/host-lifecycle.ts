import type { CancelReason } from "../../schema/interaction.js";

/**
 * Why this process is taking the session's lease, which decides what it does once it has it:
 * - `queue`: queued commands need a driver (read the queue and the open Turn, start what they ask);
 * - `claim`: a `respond` takes the lease for the Turn it is about to answer (the caller gets it);
 * - `take_over`: an open Turn no live process owns is resumed (read the Turn, resume or park it);
 * - `stop`: a `stop` found no Turn running here and drives the stop itself.
 */
export type StartPurpose = "queue" | "claim" | "take_over" | "stop";

/**
 * What this process does with its session's Turn (docs/behaviour.md#durability). At most one Turn
 * runs here, and only while this process holds the session's lease:
 * - `idle`: no Turn here and none being started; a parked Turn (every open tool waits for a person)
 *   is idle here too: it holds no lease and no memory, only rows;
 * - `starting`: the lease is being taken, or is held while the queue and the open Turn are read;
 * - `running`: `turn` runs here with the lease;
 * - `shut_down`: the process shuts down; it takes no work and starts nothing; a Turn still here is
 *   being abandoned (`turn`).
 * `closed` is whether the session is closed: a closed session starts no Turn from its queue and
 * wakes no parked Turn, but a Turn running here when it closed runs on until it is stopped.
 * `Turn` is whatever the host runs a Turn with; the lifecycle only compares it by identity.
 */
export type HostState<Turn> =
  | { kind: "idle"; closed: boolean }
  | {
      kind: "starting";
      closed: boolean;
      purpose: StartPurpose;
      /** Woken again while it read the queue: what woke it may be committed after that read. */
      woken?: true;
    }
  | { kind: "running"; closed: boolean; turn: Turn }
  | { kind: "shut_down"; closed: boolean; turn: Turn | undefined };

/** What happens to the host; each is sent where the host's code learns it. */
export type HostEvent<Turn> =
  /**
   * Commands may have been queued: they need a driver (a prompt, a Turn ended, a claim given back).
   * `prompt_started`: a prompt committed here just started a new Turn, so an idle host knows there
   * is work without reading the queue (if another process applied it meanwhile, the drive finds
   * nothing under the lease and gives it back).
   */
  | { kind: "wake"; prompt_started?: boolean }
  /** The queue was read while starting for it: `has_work` when a prompt or stop is queued. */
  | { kind: "queue_read"; has_work: boolean }
  /** A `respond` wants the lease for the Turn it answers. */
  | { kind: "claim" }
  /** The claimed lease is given back unused (the answer failed to commit). */
  | { kind: "unclaim"; drive_queue?: false }
  /** Resume an open Turn no live process owns; `with_lease` when a claim hands its lease over. */
  | { kind: "take_over"; with_lease: boolean }
  /** A `stop` command is committed and waits to be applied. */
  | { kind: "stop_requested"; reason: CancelReason }
  | { kind: "lease_acquired" }
  /** The lease is held by another live process, or its acquisition failed. */
  | { kind: "lease_refused" }
  /** The Turn was created with the lease; it now runs here. */
  | { kind: "turn_started"; turn: Turn }
  /** With the lease, the open Turn was found parked: every open tool waits for a person. */
  | { kind: "parked_found" }
  /** With the lease, nothing was left to drive (no open Turn or prompt, or the queue was cancelled). */
  | { kind: "nothing_to_drive" }
  /** Starting failed after the lease was taken. */
  | { kind: "start_failed" }
  /** `turn` ended (finished, stopped, abandoned, or `parked`: it gave the session up to wait). */
  | { kind: "turn_ended"; turn: Turn; parked: boolean }
  /**
   * A parked Turn's lease was given back, or an answer was committed while another holder had the
   * lease: the Turn may be answered now, and nobody else will look (no lost wake-up).
   */
  | { kind: "recheck_parked" }
  /** `close()` here: the session is being closed (its stop follows). */
  | { kind: "close" }
  /** Another process closed the session. */
  | { kind: "closed_elsewhere" }
  | { kind: "shutdown" };

/** What the host does next; plain data, every one performed by `SessionHost`, in order. */
export type HostEffect =
  /** List the queued commands: is there a prompt or stop to drive? */
  | { kind: "read_queue" }
  | { kind: "acquire_lease" }
  /** With the lease: read the queue and the open Turn, and start what they call for. */
  | { kind: "drive" }
  /** With the lease: read the open Turn, and resume (or stop, or park) it. */
  | { kind: "read_open_turn" }
  /** Give back the lease taken while starting, or the ended Turn's. */
  | { kind: "release_lease" }
  /** Give back a parked Turn's lease, then `recheck_parked` (no lost wake-up). */
  | { kind: "release_parked" }
  /** Read the open Turn again; take it over when an answer made it runnable. */
  | { kind: "reread_turn" }
  /** Send `wake` (after the effects before it): a queued prompt may be waiting. */
  | { kind: "start_next" }
  /** Drop the in-process waiters of the Turn that ended. */
  | { kind: "forget_waiters" }
  /** The running Turn reads its queued `stop` now, not at its next checkpoint. */
  | { kind: "apply_queued_stop" }
  | { kind: "stop_turn"; reason: CancelReason }
  /** Give the Turn up without writing, wait for it to end, release its lease. */
  | { kind: "abandon_turn" };

export interface HostTransition<Turn> {
  state: HostState<Turn>;
  effects: HostEffect[];
}

/** The lifecycle of a host created for a session, closed or not. */
export function initialHostState<Turn>(closed: boolean): HostState<Turn> {
  return { kind: "idle", closed };
}

/** The Turn running here, if any (also one being abandoned at shutdown). */
export function turnOf<Turn>(state: HostState<Turn>): Turn | undefined {
  return state.kind === "running" || state.kind === "shut_down" ? state.turn : undefined;
}

/** Whether this process runs or is starting the session's Turn (its lease is, or may be, held here). */
export function ownsTurn<Turn>(state: HostState<Turn>): boolean {
  return state.kind === "starting" || turnOf(state) !== undefined;
}

function stay<Turn>(state: HostState<Turn>, effects: HostEffect[] = []): HostTransition<Turn> {
  return { state, effects };
}

function idle<Turn>(state: HostState<Turn>, effects: HostEffect[] = []): HostTransition<Turn> {
  return { state: { kind: "idle", closed: state.closed }, effects };
}

function starting<Turn>(
  state: HostState<Turn>,
  purpose: StartPurpose,
  effects: HostEffect[],
): HostTransition<Turn> {
  return { state: { kind: "starting", closed: state.closed, purpose }, effects };
}

/** A queued prompt may wait once the session's lease is free again (never for a closed session). */
function startNextUnlessClosed(state: HostState<unknown>): HostEffect[] {
  return state.closed ? [] : [{ kind: "start_next" }];
}

/** What the lease, once held, is for. */
function effectsWithLease(purpose: StartPurpose): HostEffect[] {
  switch (purpose) {
    case "queue":
    case "stop":
      return [{ kind: "drive" }];
    case "take_over":
      return [{ kind: "read_open_turn" }];
    case "claim":
      return [];
    default: {
      const unknown: never = purpose;
      throw new Error(`Unknown start purpose: ${String(unknown)}`);
    }
  }
}

/**
 * The host's next state and what it must do (pure: no I/O, no promises). An event that does not
 * apply in a state changes nothing and asks for nothing, except where a lease would otherwise be
 * left held: whatever was taken is released (a lease acquired after shutdown, a start that failed).
 */
export function transitionHost<Turn>(state: HostState<Turn>, event: HostEvent<Turn>): HostTransition<Turn> {
  switch (event.kind) {
    case "wake":
      if (state.kind === "running") return stay(state, [{ kind: "apply_queued_stop" }]);
      // The start under way may have read the queue before the command that woke it was committed.
      if (state.kind === "starting" && state.purpose === "queue" && !state.closed) {
        return stay({ ...state, woken: true });
      }
      if (state.kind !== "idle" || state.closed) return stay(state);
      return starting(state, "queue", [{ kind: event.prompt_started ? "acquire_lease" : "read_queue" }]);
    case "queue_read": {
      if (state.kind !== "starting" || state.purpose !== "queue") return stay(state);
      if (event.has_work) return stay(state, [{ kind: "acquire_lease" }]);
      // Woken while reading: read once more (no lost wake-up), else nothing is queued.
      if (state.woken) return starting(state, "queue", [{ kind: "read_queue" }]);
      return idle(state);
    }
    case "claim":
      return state.kind === "idle" ? starting(state, "claim", [{ kind: "acquire_lease" }]) : stay(state);
    case "unclaim":
      // An answer that lost the race gives its claim back: the winner, which committed without the
      // lock this claim held, may have found the session locked and left the Turn. Like any release
      // of a parked Turn, this one is followed by a read of it (no lost wake-up).
      if (state.kind === "starting" && state.purpose === "claim") {
        const next = event.drive_queue === false ? [] : startNextUnlessClosed(state);
        return idle(state, [{ kind: "release_parked" }, ...next]);
      }
      return stay(state, [{ kind: "release_lease" }]);
    case "take_over":
      if (event.with_lease) {
        if (state.kind === "starting" && state.purpose === "claim") {
          return starting(state, "take_over", [{ kind: "read_open_turn" }]);
        }
        return stay(state, [{ kind: "release_lease" }]);
      }
      return state.kind === "idle" ? starting(state, "take_over", [{ kind: "acquire_lease" }]) : stay(state);
    case "stop_requested":
      if (state.kind === "running") return stay(state, [{ kind: "stop_turn", reason: event.reason }]);
      return state.kind === "idle" ? starting(state, "stop", [{ kind: "acquire_lease" }]) : stay(state);
    case "lease_acquired":
      if (state.kind === "starting") return stay(state, effectsWithLease(state.purpose));
      return stay(state, [{ kind: "release_lease" }]);
    case "lease_refused":
      return state.kind === "starting" ? idle(state) : stay(state);
    case "turn_started":
      if (state.kind === "starting")
        return { state: { kind: "running", closed: state.closed, turn: event.turn }, effects: [] };
      if (state.kind === "shut_down" && state.turn === undefined) {
        return { state: { ...state, turn: event.turn }, effects: [{ kind: "abandon_turn" }] };
      }
      throw new Error(`A Turn cannot start while the host is ${state.kind}`);
    case "parked_found":
      if (state.kind === "starting") return idle(state, [{ kind: "release_parked" }]);
      return stay(state, [{ kind: "release_lease" }]);
    case "nothing_to_drive":
      if (state.kind !== "starting") return stay(state, [{ kind: "release_lease" }]);
      return idle(state, [
        { kind: "release_lease" },
        ...(state.purpose === "take_over" ? startNextUnlessClosed(state) : []),
      ]);
    case "start_failed":
      // A Turn that already runs gives its lease back when it ends.
      if (state.kind === "starting") return idle(state, [{ kind: "release_lease" }]);
      // A start interrupted by shutdown still holds the lease it took.
      return stay(
        state,
        state.kind === "shut_down" && state.turn === undefined ? [{ kind: "release_lease" }] : [],
      );
    case "turn_ended":
      if (turnOf(state) !== event.turn) return stay(state);
      if (state.kind === "shut_down") {
        return {
          state: { ...state, turn: undefined },
          effects: [{ kind: "forget_waiters" }, { kind: "release_lease" }],
        };
      }
      if (event.parked) return idle(state, [{ kind: "forget_waiters" }, { kind: "release_parked" }]);
      return idle(state, [
        { kind: "forget_waiters" },
        { kind: "release_lease" },
        ...startNextUnlessClosed(state),
      ]);
    case "recheck_parked":
      return state.kind === "idle" && !state.closed ? stay(state, [{ kind: "reread_turn" }]) : stay(state);
    case "close":
      return { state: { ...state, closed: true }, effects: [] };
    case "closed_elsewhere":
      return {
        state: { ...state, closed: true },
        effects: state.kind === "running" ? [{ kind: "stop_turn", reason: "session_disposed" }] : [],
      };
    case "shutdown":
      if (state.kind === "shut_down") return stay(state);
      return {
        state: { kind: "shut_down", closed: state.closed, turn: turnOf(state) },
        effects: state.kind === "running" ? [{ kind: "abandon_turn" }] : [],
      };
    default: {
      const unknown: never = event;
      throw new Error(`Unknown host event: ${JSON.stringify(unknown)}`);
    }
  }
}
