import type { Interaction } from "../schema/interaction.js";
import type { PartMutation, SessionMutation } from "../schema/mutation.js";
import type { ToolPart, ToolState } from "../schema/parts.js";

/**
 * What a recorder subscribes to: a session of the runtime (`Session`) or of the SDK
 * (`ParleySession`). `onError` reaches only sources that report errors (the SDK).
 */
export interface MutationSource {
  subscribe(
    listener: (mutation: SessionMutation) => void,
    options?: { after_event_id?: number; onError?: (error: unknown) => void },
  ): () => void;
}

function isToolPartMutation(mutation: SessionMutation): mutation is PartMutation & { part: ToolPart } {
  return mutation.variant === "part" && mutation.part.type === "tool";
}

/** Every published snapshot of the tool part of `tool_call_id` among `mutations`, in order. */
export function toolPartsIn(mutations: readonly SessionMutation[], tool_call_id: string): ToolPart[] {
  return mutations.flatMap((mutation) =>
    isToolPartMutation(mutation) && mutation.part.tool_call_id === tool_call_id ? [mutation.part] : [],
  );
}

/**
 * The successive states the tool part of `tool_call_id` was published in (a state repeated by
 * consecutive mutations, e.g. input deltas while `input-streaming`, is listed once).
 */
export function toolStatesIn(mutations: readonly SessionMutation[], tool_call_id: string): ToolState[] {
  return toolPartsIn(mutations, tool_call_id)
    .map((part) => part.state)
    .filter((state, index, states) => index === 0 || states[index - 1] !== state);
}

export function isTurnFinish(mutation: SessionMutation): boolean {
  return mutation.variant === "turn" && mutation.type === "finish";
}

/**
 * The id of the latest Interaction of a tool part mutation — the one a `waiting-user` tool waits
 * for — or "" for any other mutation.
 */
export function latestInteractionIdOf(mutation: SessionMutation): string {
  return (
    (isToolPartMutation(mutation) ? mutation.part.interactions?.at(-1)?.interaction_id : undefined) ?? ""
  );
}

/** A `part` mutation of a tool part now in `state`. */
export function isToolState(state: ToolState) {
  return (mutation: SessionMutation): boolean =>
    isToolPartMutation(mutation) && mutation.part.state === state;
}

/**
 * Records every mutation one subscription delivers, from now (or after `after_event_id`), and lets a
 * test wait for one that matches without timing assumptions (it waits as long as the test's own
 * timeout allows). Its helpers read like docs/behaviour.md.
 */
export class MutationRecorder {
  readonly mutations: SessionMutation[] = [];
  /** What the source reported through `onError` (the SDK's subscription). */
  readonly errors: unknown[] = [];
  readonly #waiters = new Set<{
    match: (mutation: SessionMutation) => boolean;
    resolve: (mutation: SessionMutation) => void;
  }>();
  #unsubscribe: (() => void) | null;

  constructor(source: MutationSource, options: { after_event_id?: number } = {}) {
    this.#unsubscribe = source.subscribe((mutation) => this.#record(mutation), {
      ...options,
      onError: (error) => this.errors.push(error),
    });
  }

  #record(mutation: SessionMutation): void {
    this.mutations.push(mutation);
    for (const waiter of this.#waiters) {
      if (waiter.match(mutation)) {
        this.#waiters.delete(waiter);
        waiter.resolve(mutation);
      }
    }
  }

  /** The first mutation, already recorded or still to come, that matches. */
  waitFor<M extends SessionMutation>(match: (mutation: SessionMutation) => mutation is M): Promise<M>;
  waitFor(match: (mutation: SessionMutation) => boolean): Promise<SessionMutation>;
  waitFor(match: (mutation: SessionMutation) => boolean): Promise<SessionMutation> {
    const recorded = this.mutations.find(match);
    if (recorded !== undefined) return Promise.resolve(recorded);
    return new Promise((resolve) => this.#waiters.add({ match, resolve }));
  }

  /** `variant:type` of every mutation, e.g. `part:tool`, `turn:finish`. */
  kinds(): string[] {
    return this.mutations.map((mutation) => `${mutation.variant}:${mutation.type}`);
  }

  eventIds(): number[] {
    return this.mutations.map((mutation) => mutation.event_id);
  }

  /** See `toolStatesIn`. */
  toolStates(tool_call_id: string): ToolState[] {
    return toolStatesIn(this.mutations, tool_call_id);
  }

  /** Every published snapshot of the tool part of `tool_call_id`, in order. */
  toolParts(tool_call_id: string): ToolPart[] {
    return toolPartsIn(this.mutations, tool_call_id);
  }

  /** The latest published snapshot of the tool part of `tool_call_id`. */
  toolPart(tool_call_id: string): ToolPart | undefined {
    return this.toolParts(tool_call_id).at(-1);
  }

  /**
   * The first pending Interaction published in a tool part that matches (already recorded or still
   * to come). Tests use it to wait until a tool is `waiting-user`.
   */
  async waitForPendingInteraction(
    predicate: (interaction: Interaction) => boolean = () => true,
  ): Promise<Interaction> {
    const pendingIn = (mutation: SessionMutation) =>
      isToolPartMutation(mutation)
        ? mutation.part.interactions?.find(
            (interaction) => interaction.status === "pending" && predicate(interaction),
          )
        : undefined;
    const interaction = pendingIn(await this.waitFor((mutation) => pendingIn(mutation) !== undefined));
    if (!interaction) throw new Error("unreachable: the matched mutation carries a pending interaction");
    return interaction;
  }

  /** Resolves with the `turn` `finish` mutation of the next (or a recorded) finished Turn. */
  waitForTurnFinish(turn_id?: string): Promise<SessionMutation> {
    return this.waitFor(
      (mutation) =>
        mutation.variant === "turn" &&
        mutation.type === "finish" &&
        (turn_id === undefined || mutation.turn_id === turn_id),
    );
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#waiters.clear();
  }
}
