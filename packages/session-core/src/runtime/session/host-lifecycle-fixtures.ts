import {
  type HostEffect,
  type HostEvent,
  type HostState,
  type HostTransition,
  type StartPurpose,
  transitionHost,
} from "./host-lifecycle.js";

/** States and runs of the host lifecycle for its tests; a Turn is compared by identity only. */
export type Turn = { turn_id: string };
export const turn: Turn = { turn_id: "turn:a" };
export const other: Turn = { turn_id: "turn:b" };

export const idle = (closed = false): HostState<Turn> => ({ kind: "idle", closed });
export const starting = (purpose: StartPurpose, closed = false): HostState<Turn> => ({
  kind: "starting",
  closed,
  purpose,
});
export const running = (closed = false): HostState<Turn> => ({ kind: "running", closed, turn });
export const shutDown = (with_turn: Turn | undefined = undefined): HostState<Turn> => ({
  kind: "shut_down",
  closed: false,
  turn: with_turn,
});

export const send = (state: HostState<Turn>, event: HostEvent<Turn>): HostTransition<Turn> =>
  transitionHost(state, event);

/** The state after a sequence of events, with every effect asked for on the way. */
export function run(state: HostState<Turn>, events: HostEvent<Turn>[]): HostTransition<Turn> {
  const effects: HostEffect[] = [];
  let current = state;
  for (const event of events) {
    const next = send(current, event);
    current = next.state;
    effects.push(...next.effects);
  }
  return { state: current, effects };
}

export const unchanged = (state: HostState<Turn>): HostTransition<Turn> => ({ state, effects: [] });
