import type {
  CommitResult,
  InteractionEvent,
  InteractionRecord,
  SessionCommit,
} from "../../ports/session-store.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import type { AssistantPart } from "../../schema/parts.js";
import type { AssistantTransition, MutationSpec } from "../transitions/transition.js";

/**
 * What every mutation carries besides its change (`event_id` and `mutation_id` are assigned at
 * commit; a live mutation gets a random `mutation_id` when it is published).
 */
export interface MutationBase {
  session_id: string;
  created_at: number;
}

/**
 * The parts of `next` that are not the committed copy's own objects: the ones a transition replaced
 * or added (transitions never change a part in place). A copy read again from the store counts as
 * changed, which only writes more.
 */
export function changedParts(committed: AssistantMessage, next: AssistantMessage): AssistantPart[] {
  const before = new Map(committed.parts.map((part) => [part.part_id, part]));
  return next.parts.filter((part) => before.get(part.part_id) !== part);
}

/**
 * The message a checkpoint commits: `next`, the revision after `committed` (none: `next` is
 * inserted), with the ids of the parts it changed.
 */
export function messageRevision(
  next: AssistantMessage,
  committed: AssistantMessage | undefined,
): NonNullable<SessionCommit["message"]> {
  if (!committed) return { snapshot: next, expected_revision: 0 };
  const changed_part_ids = changedParts(committed, next).map((part) => part.part_id);
  return { snapshot: next, expected_revision: committed.revision, changed_part_ids };
}

/** A checkpoint that publishes its message whole. */
export const WHOLE_MESSAGE: MutationSpec = { variant: "message" };

/** The whole message as a mutation. */
export function wholeMessageMutation(base: MutationBase, message: SessionMessage): UnsequencedMutation {
  return {
    ...base,
    variant: "message",
    type: message.type,
    message_id: message.message_id,
    ...(message.turn_id === undefined ? {} : { turn_id: message.turn_id }),
    sequence: message.sequence,
    revision: message.revision,
    message,
  };
}

/** The mutation `spec` describes, of `message` as it is now. */
export function mutationOf(
  base: MutationBase,
  message: AssistantMessage,
  spec: MutationSpec,
): UnsequencedMutation {
  const common = { ...base, message_id: message.message_id, revision: message.revision };
  const turn = message.turn_id === undefined ? {} : { turn_id: message.turn_id };
  switch (spec.variant) {
    case "message":
      return wholeMessageMutation(base, message);
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

/**
 * The Interaction index rows and admin-feed entries of the Interactions a revision changed (none in
 * the feed for an unpublished revision).
 */
export function interactionRowsOf(
  session_id: string,
  message: AssistantMessage,
  result: AssistantTransition<unknown>,
): Pick<SessionCommit, "interactions" | "interaction_events"> {
  const changes = result.interaction_changes ?? [];
  if (changes.length === 0) return {};
  const interactions: InteractionRecord[] = [];
  const interaction_events: Omit<InteractionEvent, "event_id">[] = [];
  for (const change of changes) {
    const part = message.parts.find(
      (item) => item.type === "tool" && item.tool_call_id === change.tool_call_id,
    );
    const interaction = part?.type === "tool" ? part.interactions?.[change.ordinal] : undefined;
    if (part?.type !== "tool" || !interaction) {
      throw new Error(`Changed Interaction not found: ${change.tool_call_id}#${change.ordinal}`);
    }
    interactions.push({
      session_id,
      message_id: message.message_id,
      tool_call_id: part.tool_call_id,
      tool_name: part.tool_name,
      ordinal: change.ordinal,
      interaction,
    });
    interaction_events.push({ kind: change.kind, session_id, interaction });
  }
  return result.publish === false ? { interactions } : { interactions, interaction_events };
}

/** `SessionWriter.appendMessage`'s options. */
export interface AppendOptions {
  epoch?: number;
  /** false: committed with no mutation (no event id: `set(..., { publish_mutation: false })`). */
  publish?: boolean;
  settle_commands?: SessionCommit["settle_commands"];
  /** Logged just before the message's own mutation, in the same commit (e.g. the Turn's `start`). */
  preceding_mutation?: UnsequencedMutation;
  /** A prompt's start of its Turn, committed with its user message (see `SessionCommit`). */
  start?: Pick<SessionCommit, "claim" | "starts_turn" | "session_patch">;
  /** Told what the store returned (e.g. the epoch a claim advanced to), before subscribers hear of it. */
  onCommitted?: (result: CommitResult) => void;
}

export interface CheckpointOptions {
  epoch?: number;
  /** This revision claims the Turn (`SessionCommit.claim`); the result carries the new epoch. */
  claim?: SessionCommit["claim"];
  stored?: AssistantMessage;
  /**
   * A session change committed with this revision, after it: its `mutation` is logged after the
   * message's (`preceding_mutation` of the commit), e.g. the Turn's `finish` with the close.
   * `onCommitted` runs after the commit, before subscribers see either mutation.
   */
  followed_by?: Pick<SessionCommit, "settle_commands" | "ends_turn"> & {
    mutation: UnsequencedMutation;
    onCommitted?: () => void;
  };
}

/**
 * The mutations a checkpoint logs: the message's own, or, with `followed_by`, that session change's
 * mutation after it (`preceding_mutation`) and its command settlements.
 */
export function loggedMutations(
  own: UnsequencedMutation | undefined,
  followed_by: CheckpointOptions["followed_by"],
): Pick<SessionCommit, "mutation" | "preceding_mutation" | "settle_commands" | "ends_turn"> {
  if (followed_by === undefined) return own === undefined ? {} : { mutation: own };
  return {
    mutation: followed_by.mutation,
    ...(own === undefined ? {} : { preceding_mutation: own }),
    ...(followed_by.settle_commands === undefined ? {} : { settle_commands: followed_by.settle_commands }),
    ...(followed_by.ends_turn === undefined ? {} : { ends_turn: followed_by.ends_turn }),
  };
}
