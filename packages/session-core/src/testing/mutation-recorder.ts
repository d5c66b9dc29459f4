import type { Session, SubscribeOptions } from "../runtime/session/session-facade.js";
import type { Interaction } from "../schema/interaction.js";
import type { PartMutation, SessionMutation } from "../schema/mutation.js";
import type { ToolPart, ToolState } from "../schema/parts.js";

/** Everything a session published to one subscription, with helpers that read like docs/behaviour.md. */
export interface MutationRecorder {
  readonly mutations: readonly SessionMutation[];
  /** `variant:type` of every mutation, e.g. `part:tool`, `turn:finish`. */
  kinds(): string[];
  /**
   * The successive states the tool part of `tool_call_id` was published in (a state repeated by
   * consecutive mutations, e.g. input deltas while `input-streaming`, is listed once).
   */
  toolStates(tool_call_id: string): ToolState[];
  /** Every published snapshot of the tool part of `tool_call_id`, in order. */
  toolParts(tool_call_id: string): ToolPart[];
  /** The latest published snapshot of the tool part of `tool_call_id`. */
  toolPart(tool_call_id: string): ToolPart | undefined;
  /** The first mutation, already recorded or still to come, that matches. */
  waitFor(predicate: (mutation: SessionMutation) => boolean): Promise<SessionMutation>;
  /**
   * The first pending Interaction published in a tool part that matches (already recorded or still
   * to come). Tests use it to wait until a tool is `waiting-user`.
   */
  waitForPendingInteraction(predicate?: (interaction: Interaction) => boolean): Promise<Interaction>;
  /** Resolves with the `turn` `finish` mutation of the next (or a recorded) finished Turn. */
  waitForTurnFinish(turn_id?: string): Promise<SessionMutation>;
  stop(): void;
}

function isToolPartMutation(mutation: SessionMutation): mutation is PartMutation & { part: ToolPart } {
  return mutation.variant === "part" && mutation.part.type === "tool";
}

/** Subscribes to `session` and records every mutation it publishes from now (or `after_event_id`). */
export function recordMutations(session: Session, options: SubscribeOptions = {}): MutationRecorder {
  const mutations: SessionMutation[] = [];
  const waiters = new Set<{
    predicate: (mutation: SessionMutation) => boolean;
    resolve: (m: SessionMutation) => void;
  }>();
  const unsubscribe = session.subscribe((mutation) => {
    mutations.push(mutation);
    for (const waiter of waiters) {
      if (waiter.predicate(mutation)) {
        waiters.delete(waiter);
        waiter.resolve(mutation);
      }
    }
  }, options);

  const waitFor = (predicate: (mutation: SessionMutation) => boolean) => {
    const recorded = mutations.find(predicate);
    if (recorded) return Promise.resolve(recorded);
    return new Promise<SessionMutation>((resolve) => waiters.add({ predicate, resolve }));
  };

  const toolParts = (tool_call_id: string) =>
    mutations.flatMap((mutation) =>
      isToolPartMutation(mutation) && mutation.part.tool_call_id === tool_call_id ? [mutation.part] : [],
    );

  const pendingIn = (mutation: SessionMutation, predicate: (interaction: Interaction) => boolean) =>
    isToolPartMutation(mutation)
      ? mutation.part.interactions?.find(
          (interaction) => interaction.status === "pending" && predicate(interaction),
        )
      : undefined;

  return {
    mutations,
    kinds: () => mutations.map((mutation) => `${mutation.variant}:${mutation.type}`),
    toolStates: (tool_call_id) =>
      toolParts(tool_call_id)
        .map((part) => part.state)
        .filter((state, index, states) => index === 0 || states[index - 1] !== state),
    toolParts,
    toolPart: (tool_call_id) => toolParts(tool_call_id).at(-1),
    waitFor,
    async waitForPendingInteraction(predicate = () => true) {
      const mutation = await waitFor((candidate) => pendingIn(candidate, predicate) !== undefined);
      const interaction = pendingIn(mutation, predicate);
      if (!interaction) throw new Error("unreachable: the matched mutation carries a pending interaction");
      return interaction;
    },
    waitForTurnFinish: (turn_id) =>
      waitFor(
        (mutation) =>
          mutation.variant === "turn" &&
          mutation.type === "finish" &&
          (turn_id === undefined || mutation.turn_id === turn_id),
      ),
    stop: () => {
      unsubscribe();
      waiters.clear();
    },
  };
}
