import type { AssistantMessage } from "../../schema/messages.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { AssistantTransition, AssistantTransitionFn, MutationSpec } from "../transitions/transition.js";

/**
 * The live state of one open assistant message (DESIGN §10.6): what the stream made of it since its
 * last checkpoint, never committed on its own. `message.revision` stays the committed revision it
 * builds on (0 before the message's first checkpoint). `transitions` are replayed onto a reloaded
 * copy when a checkpoint meets another process's commit.
 */
export interface LiveCopy {
  message: AssistantMessage;
  transitions: AssistantTransitionFn[];
  /** The message has no committed revision yet: its first checkpoint inserts it. */
  uncommitted: boolean;
}

/**
 * The one mutation a checkpoint publishes for its message (the team's checkpoint rule): a `part`
 * mutation when the revision changed exactly one part of an already-committed message, else the
 * whole message. Undefined: nothing to publish (an unpublished change, e.g. `resumed_at`, with no
 * live state riding along). Parts are compared by identity: transitions replace only what they change.
 */
export function checkpointSpec(
  committed: AssistantMessage | undefined,
  next: AssistantMessage,
  result: AssistantTransition<unknown>,
  carriesLive: boolean,
): MutationSpec | undefined {
  if (result.publish === false && !carriesLive) return undefined;
  if (!committed || committed.status !== next.status) return { variant: "message" };
  const before = new Map(committed.parts.map((part) => [part.part_id, part]));
  const changed = next.parts.filter((part) => before.get(part.part_id) !== part);
  const only = changed[0];
  if (changed.length === 1 && only && next.parts.length >= committed.parts.length) {
    return { variant: "part", part_id: only.part_id };
  }
  return { variant: "message" };
}

/** Replays `transitions` onto `message` (a reloaded committed copy); ones that no longer apply drop out. */
export function replayLive(
  message: AssistantMessage,
  transitions: readonly AssistantTransitionFn[],
  now: number,
): LiveCopy {
  let current = message;
  const kept: AssistantTransitionFn[] = [];
  for (const transition of transitions) {
    let result: AssistantTransition | null;
    try {
      result = transition(current, now);
    } catch {
      continue;
    }
    if (!result) continue;
    current = { ...result.message, revision: message.revision };
    kept.push(transition);
  }
  return { message: current, transitions: kept, uncommitted: false };
}

/** The live mutation a live transition publishes, or undefined for one readers need not see. */
export function liveMutationOf(
  message: AssistantMessage,
  result: AssistantTransition,
  base: { mutation_id: string; session_id: string; created_at: number; event_id: number },
): SessionMutation | undefined {
  if (result.publish === false || result.rides_along) return undefined;
  const spec = result.mutation;
  const common = { ...base, live: true as const, message_id: message.message_id, revision: message.revision };
  const turn = message.turn_id === undefined ? {} : { turn_id: message.turn_id };
  switch (spec.variant) {
    case "message":
      return liveMessageMutation(message, base);
    case "part": {
      const part = message.parts.find((item) => item.part_id === spec.part_id);
      if (!part) throw new Error(`Changed part not found: ${spec.part_id}`);
      return { ...common, ...turn, variant: "part", type: part.type, part_id: part.part_id, part };
    }
    case "delta":
      return {
        ...common,
        ...turn,
        variant: "delta",
        type: spec.type,
        part_id: spec.part_id,
        delta: spec.delta,
      };
  }
}

/** The whole live message (e.g. before its first checkpoint: `revision: 0`). */
export function liveMessageMutation(
  message: AssistantMessage,
  base: { mutation_id: string; session_id: string; created_at: number; event_id: number },
): SessionMutation {
  return {
    ...base,
    live: true,
    variant: "message",
    type: "assistant",
    message_id: message.message_id,
    ...(message.turn_id === undefined ? {} : { turn_id: message.turn_id }),
    sequence: message.sequence,
    revision: message.revision,
    message,
  };
}
