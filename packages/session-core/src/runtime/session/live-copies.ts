import type { EventBus } from "../../ports/event-bus.js";
import type { RuntimeLogger } from "../../ports/logger.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { SessionMutation } from "../../schema/mutation.js";
import {
  type AssistantTransition,
  type AssistantTransitionFn,
  findToolIndex,
  type MutationSpec,
} from "../transitions/transition.js";
import { changedParts, type MutationBase, mutationOf, wholeMessageMutation } from "./revision-mutations.js";

/** The transition of a checkpoint of the live state alone (the committed copy catches up). */
export const liveStateAlone: AssistantTransitionFn = (current) => ({
  message: current,
  mutation: { variant: "message" },
});

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
  const changed = changedParts(committed, next);
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

interface LiveStateDeps {
  session_id: string;
  bus: EventBus;
  logger: RuntimeLogger | undefined;
  /** A new random `mutation_id` (a live mutation has no event id to derive one from). */
  liveMutationId(): string;
}

/**
 * The live copies of a session's open assistant messages in this process, and what their live
 * mutations follow: the last durable event this process committed. Every call runs on the
 * session's write chain (`SessionWriter`), so copies and commits never interleave.
 */
export class LiveState {
  readonly #deps: LiveStateDeps;
  readonly #copies = new Map<string, LiveCopy>();
  #lastEventId: number | undefined;

  constructor(deps: LiveStateDeps) {
    this.#deps = deps;
  }

  get(message_id: string): LiveCopy | undefined {
    return this.#copies.get(message_id);
  }

  has(message_id: string): boolean {
    return this.#copies.has(message_id);
  }

  /** Set after a reload: the replayed copy, or nothing when no live change is left. */
  replace(message_id: string, copy: LiveCopy): void {
    if (copy.transitions.length > 0 || copy.uncommitted) this.#copies.set(message_id, copy);
    else this.#copies.delete(message_id);
  }

  /** The message was committed (or forgotten): its live state is gone. */
  drop(message_id: string): void {
    this.#copies.delete(message_id);
  }

  /** A durable event of the session this process committed. */
  followed(event_id: number): void {
    this.#lastEventId = Math.max(this.#lastEventId ?? 0, event_id);
  }

  /** The open message whose live copy holds the tool part of `tool_call_id`. */
  locateTool(tool_call_id: string): string | undefined {
    for (const [message_id, live] of this.#copies) {
      if (findToolIndex(live.message, tool_call_id) >= 0) return message_id;
    }
    return undefined;
  }

  /** A message opened live (revision 0), published whole. */
  begin(message: AssistantMessage, now: number): void {
    this.#copies.set(message.message_id, { message, transitions: [], uncommitted: true });
    this.#publish(now, (base) => ({ ...wholeMessageMutation(base, message), ...this.#follows() }));
  }

  /** Applies `transition` to the live copy built on `base` and publishes it; false when it changed nothing. */
  apply(message_id: string, base: AssistantMessage, transition: AssistantTransitionFn, now: number): boolean {
    const live = this.#copies.get(message_id);
    const result = transition(base, now);
    if (!result) return false;
    const message = { ...result.message, revision: base.revision };
    this.#copies.set(message_id, {
      message,
      transitions: [...(live?.transitions ?? []), transition],
      uncommitted: live?.uncommitted ?? false,
    });
    // A change readers do not need on its own (the model stream's end) rides with the next checkpoint.
    if (result.publish === false || result.rides_along) return true;
    this.#publish(now, (mutationBase) => ({
      ...mutationOf(mutationBase, message, result.mutation),
      ...this.#follows(),
    }));
    return true;
  }

  #follows() {
    return { event_id: this.#lastEventId ?? 0, live: true as const };
  }

  #publish(now: number, build: (base: MutationBase) => Omit<SessionMutation, "mutation_id">): void {
    // Before this process committed anything of the session it does not know which durable event a
    // live mutation would follow; a subscriber would drop it anyway, so none is sent.
    if (this.#lastEventId === undefined) return;
    try {
      const base = { session_id: this.#deps.session_id, created_at: now };
      const mutation = { ...build(base), mutation_id: this.#deps.liveMutationId() };
      this.#deps.bus.publishLive(mutation as SessionMutation);
    } catch (error) {
      // Best effort by contract: the next checkpoint carries its persisted form.
      this.#deps.logger?.warn(
        { session_id: this.#deps.session_id, err: error },
        "publishing a live mutation failed",
      );
    }
  }
}
