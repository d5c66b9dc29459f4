import type {
  AssistantTransition,
  AssistantTransitionFn,
  InteractionChange,
  MutationSpec,
} from "./transition.js";

/**
 * Several transitions of one message applied in order as ONE revision (one commit), publishing one
 * mutation (one revision, at most one mutation per message): the one part they all changed as a
 * `part` mutation, or the whole message when they changed more than one. Changes marked
 * `rides_along` do not count when others are published. Null when none of them changed anything.
 * What a subscriber sees is still only persisted state: the batch is committed before it publishes.
 */
export function batchTransitions(transitions: readonly AssistantTransitionFn[]): AssistantTransitionFn {
  if (transitions.length === 1 && transitions[0]) return transitions[0];
  return (current, now) => {
    let message = current;
    const applied: AssistantTransition[] = [];
    for (const transition of transitions) {
      const result = transition(message, now);
      if (!result) continue;
      message = result.message;
      applied.push(result);
    }
    const last = applied.at(-1);
    if (!last) return null;
    if (applied.length === 1) return last;
    const published = applied.filter((result) => result.publish !== false);
    const shown = published.filter((result) => !result.rides_along);
    const interaction_changes: InteractionChange[] = applied.flatMap(
      (result) => result.interaction_changes ?? [],
    );
    return {
      message,
      mutation: oneMutation((shown.length > 0 ? shown : published).map((result) => result.mutation)),
      ...(interaction_changes.length > 0 ? { interaction_changes } : {}),
      ...(published.length === 0 ? { publish: false as const } : {}),
    };
  };
}

/**
 * The one change's own mutation; one `part` mutation when every change is of the same part (by
 * `part` mutations); else `message`.
 */
function oneMutation(specs: MutationSpec[]): MutationSpec {
  const first = specs[0];
  if (specs.length === 1 && first) return first;
  if (
    specs.length > 0 &&
    first?.variant === "part" &&
    specs.every((spec) => spec.variant === "part" && spec.part_id === first.part_id)
  ) {
    return first;
  }
  return { variant: "message" };
}
