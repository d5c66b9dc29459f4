import type { Interaction } from "../schema/interaction.js";
import { isLiveMutation, type SessionMutation } from "../schema/mutation.js";
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

/**
 * The tool parts a mutation publishes: the part of a `part` mutation, or every tool part of an
 * assistant `message` mutation (a checkpoint that created the message or changed several parts).
 */
export function toolPartsOfMutation(mutation: SessionMutation): ToolPart[] {
  if (mutation.variant === "part") return mutation.part.type === "tool" ? [mutation.part] : [];
  if (mutation.variant === "message" && mutation.message.type === "assistant") {
    return mutation.message.parts.filter((part): part is ToolPart => part.type === "tool");
  }
  return [];
}

/** Every published snapshot of the tool part of `tool_call_id` among `mutations`, in order. */
export function toolPartsIn(mutations: readonly SessionMutation[], tool_call_id: string): ToolPart[] {
  return mutations.flatMap((mutation) =>
    toolPartsOfMutation(mutation).filter((part) => part.tool_call_id === tool_call_id),
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
  const waiting = toolPartsOfMutation(mutation).filter((part) => part.state === "waiting-user");
  const parts = waiting.length > 0 ? waiting : toolPartsOfMutation(mutation);
  return parts.at(-1)?.interactions?.at(-1)?.interaction_id ?? "";
}

/** A mutation that publishes a tool part now in `state` (its `part`, or its whole message). */
export function isToolState(state: ToolState) {
  return (mutation: SessionMutation): boolean =>
    toolPartsOfMutation(mutation).some((part) => part.state === state);
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

  /** `variant:type` of every mutation, e.g. `part:tool`, `turn:finish` (`live:` before a live one). */
  kinds(): string[] {
    return this.mutations.map(
      (mutation) => `${isLiveMutation(mutation) ? "live:" : ""}${mutation.variant}:${mutation.type}`,
    );
  }

  /** The durable mutations recorded (a live one is never replayed: DESIGN §10.6). */
  durable(): SessionMutation[] {
    return this.mutations.filter((mutation) => !isLiveMutation(mutation));
  }

  /** The event ids of the durable mutations (a live one repeats the id of the one it follows). */
  eventIds(): number[] {
    return this.durable().map((mutation) => mutation.event_id);
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
      toolPartsOfMutation(mutation)
        .flatMap((part) => part.interactions ?? [])
        .find((interaction) => interaction.status === "pending" && predicate(interaction));
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
