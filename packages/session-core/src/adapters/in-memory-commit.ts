import { ParleyError, StoreConflictError } from "../errors.js";
import type {
  CommitResult,
  InteractionEvent,
  InteractionRecord,
  SessionCommit,
  SessionEvent,
} from "../ports/session-store.js";
import type { SessionMessage } from "../schema/messages.js";
import { sequencedMutation, type UnsequencedMutation } from "../schema/mutation.js";
import type { SessionRecord } from "../schema/session.js";
import type { SessionCommand } from "../schema/session-command.js";
import { reportsQueuedCommands } from "../store/commit-parts.js";
import { inJsonbKeyOrder } from "../store/jsonb-key-order.js";
import { startingPromptCommand } from "../store/starting-prompt.js";
import type { InMemoryTurns } from "./in-memory-turns.js";

/** One session as the in-memory store holds it. */
export interface InMemorySessionState {
  record: SessionRecord;
  /** By message_id. */
  messages: Map<string, SessionMessage>;
  /** sequence → message_id; a sequence belongs to one message forever. */
  sequences: Map<number, string>;
  last_sequence: number;
  /** Ids of the interactions of this session (the records live in the global index). */
  interaction_ids: Set<string>;
  events: SessionEvent[];
  /** Every command of the session, in commit order. */
  commands: SessionCommand[];
  active_turn_id: string | null;
}

/** What a commit reads and writes beyond its session: the store's cross-session indexes. */
export interface InMemoryCommitTarget {
  interactions: Map<string, InteractionRecord>;
  interaction_events: InteractionEvent[];
  turns: InMemoryTurns;
  /** The fencing epoch commits of a session must carry. */
  leaseEpoch(session_id: string): number;
  /** A commit's `claim`: the session's epoch advances by one and `holder` holds it; the new epoch. */
  claimEpoch(session_id: string, holder: string): number;
}

/** The rules of the port that read stored state (well-formedness is checked before), before anything is written. */
export function checkCommit(
  target: InMemoryCommitTarget,
  state: InMemorySessionState,
  commit: SessionCommit,
): void {
  const { session_id } = commit;
  if (state.record.closed_at !== null) {
    throw new ParleyError("session_closed", `Session is closed: ${session_id}`);
  }
  if (commit.epoch !== undefined && commit.epoch !== target.leaseEpoch(session_id)) {
    throw new StoreConflictError(
      "fenced",
      `Lease epoch ${commit.epoch} is not the current epoch ${target.leaseEpoch(session_id)} of session ${session_id}`,
    );
  }
  // Like the Postgres store, which settles the prompt before it writes the revision.
  const start = commit.starts_turn;
  if (start) {
    if (state.active_turn_id !== null || state.commands.some((command) => command.status === "queued")) {
      throw new StoreConflictError("queued", `Session ${session_id} has an active Turn or a queued command`);
    }
    if (
      start.request_id !== undefined &&
      state.commands.some((command) => command.request_id === start.request_id)
    ) {
      throw new StoreConflictError("revision", `Prompt request ${start.request_id} was committed before`);
    }
  }
  if (commit.message) {
    const { snapshot, expected_revision } = commit.message;
    const stored = state.messages.get(snapshot.message_id);
    const stored_revision = stored?.revision ?? 0;
    if (stored_revision !== expected_revision) {
      throw new StoreConflictError(
        "revision",
        `Message ${snapshot.message_id} is at revision ${stored_revision}, not ${expected_revision}`,
      );
    }
    if (stored && stored.sequence !== snapshot.sequence) {
      throw new Error(
        `Message ${snapshot.message_id} cannot move from sequence ${stored.sequence} to ${snapshot.sequence}`,
      );
    }
    if (stored) assertUnchangedPartsAsStored(stored, commit.message);
    assertInteractionsIndexed(target, commit);
    const holder = state.sequences.get(snapshot.sequence);
    if (!stored && holder !== undefined) {
      throw new StoreConflictError(
        "sequence",
        `Sequence ${snapshot.sequence} of session ${session_id} is taken by message ${holder}`,
      );
    }
  }
  for (const record of commit.interactions ?? []) {
    const existing = target.interactions.get(record.interaction.interaction_id);
    if (existing && existing.session_id !== session_id) {
      throw new ParleyError(
        "invalid_input",
        `Interaction ${record.interaction.interaction_id} already belongs to session ${existing.session_id}`,
      );
    }
  }
  for (const settlement of commit.settle_commands ?? []) {
    const command = state.commands.find((candidate) => candidate.command_id === settlement.command_id);
    if (command?.status !== "queued") {
      throw new StoreConflictError("revision", `Command is not queued: ${settlement.command_id}`);
    }
  }
  const ends = commit.ends_turn;
  if (ends && !ends.cancel_queued_prompts) {
    const settled = new Set((commit.settle_commands ?? []).map((settlement) => settlement.command_id));
    const waiting = state.commands.some(
      (command) =>
        command.status === "queued" &&
        command.kind === "prompt" &&
        command.turn_id === ends.turn_id &&
        !settled.has(command.command_id),
    );
    if (waiting) {
      throw new StoreConflictError("queued", `A prompt for Turn ${ends.turn_id} is still queued`);
    }
  }
}

/**
 * A writer's `changed_part_ids` hold every part that differs from the stored revision, and no part
 * went away: the Postgres store writes only the parts named, so a part left out would be lost there.
 * Checked here, where the stored revision is at hand, so the runtime's tests catch such a writer.
 */
function assertUnchangedPartsAsStored(
  stored: SessionMessage,
  message: NonNullable<SessionCommit["message"]>,
) {
  const { snapshot, changed_part_ids } = message;
  if (changed_part_ids === undefined || stored.type !== "assistant" || snapshot.type !== "assistant") return;
  const changed = new Set(changed_part_ids);
  const next = new Map(snapshot.parts.map((part) => [part.part_id, part]));
  for (const part of stored.parts) {
    const now = next.get(part.part_id);
    if (now === undefined)
      throw new Error(`Part ${part.part_id} of message ${snapshot.message_id} went away`);
    if (!changed.has(part.part_id) && JSON.stringify(inJsonbKeyOrder(now)) !== JSON.stringify(part)) {
      throw new Error(
        `Part ${part.part_id} of message ${snapshot.message_id} changed but is not named changed`,
      );
    }
  }
  const storedIds = new Set(stored.parts.map((part) => part.part_id));
  const added = snapshot.parts.find((part) => !changed.has(part.part_id) && !storedIds.has(part.part_id));
  if (added)
    throw new Error(`Part ${added.part_id} of message ${snapshot.message_id} is new but not named changed`);
}

/**
 * Every Interaction a committed tool part holds is the one its index row holds after the commit
 * (the row is the Postgres store's only copy: it reads a tool part's Interactions from there).
 */
function assertInteractionsIndexed(target: InMemoryCommitTarget, commit: SessionCommit) {
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type !== "assistant") return;
  const committed = new Map(
    (commit.interactions ?? []).map((record) => [record.interaction.interaction_id, record]),
  );
  for (const part of snapshot.parts) {
    if (part.type !== "tool") continue;
    for (const [ordinal, interaction] of (part.interactions ?? []).entries()) {
      const record =
        committed.get(interaction.interaction_id) ?? target.interactions.get(interaction.interaction_id);
      const same =
        record !== undefined &&
        record.message_id === snapshot.message_id &&
        record.tool_call_id === part.tool_call_id &&
        record.ordinal === ordinal &&
        JSON.stringify(inJsonbKeyOrder(record.interaction)) === JSON.stringify(inJsonbKeyOrder(interaction));
      if (!same) {
        throw new Error(
          `Interaction ${interaction.interaction_id} of ${part.part_id} is not the one its index row holds`,
        );
      }
    }
  }
}

/** The commands still queued, in queue order. */
export function queuedOf(commands: readonly SessionCommand[]): SessionCommand[] {
  return commands.filter((command) => command.status === "queued");
}

/** Writes a checked commit; nothing here can fail, which makes the commit all-or-nothing. */
export function applyCommit(
  target: InMemoryCommitTarget,
  state: InMemorySessionState,
  commit: SessionCommit,
): CommitResult {
  if (commit.message) {
    // Stored as Postgres stores a `jsonb` value: its objects' keys reordered (see `inJsonbKeyOrder`).
    const snapshot = inJsonbKeyOrder(commit.message.snapshot);
    state.messages.set(snapshot.message_id, snapshot);
    state.sequences.set(snapshot.sequence, snapshot.message_id);
    state.last_sequence = Math.max(state.last_sequence, snapshot.sequence);
  }
  for (const record of commit.interactions ?? []) {
    target.interactions.set(record.interaction.interaction_id, record);
    state.interaction_ids.add(record.interaction.interaction_id);
  }
  if (commit.session_patch) {
    state.record = { ...state.record, ...commit.session_patch };
  }
  const start = commit.starts_turn;
  let auto_titled: boolean | undefined;
  if (start) {
    state.commands.push(startingPromptCommand(commit.session_id, start));
    state.active_turn_id = start.turn_id;
    auto_titled = start.auto_title !== undefined && state.record.title === "";
    if (auto_titled) state.record = { ...state.record, title: start.auto_title ?? "" };
  }
  for (const settlement of commit.settle_commands ?? []) {
    const index = state.commands.findIndex((candidate) => candidate.command_id === settlement.command_id);
    const command = state.commands[index];
    if (!command) continue;
    state.commands[index] =
      command.kind === "stop"
        ? { ...command, status: settlement.status, result: settlement.result ?? null }
        : { ...command, status: settlement.status };
  }
  const ends = commit.ends_turn;
  if (ends) {
    if (ends.cancel_queued_prompts) {
      state.commands = state.commands.map((command) =>
        command.status === "queued" && command.kind === "prompt" && command.turn_id === ends.turn_id
          ? { ...command, status: "cancelled" }
          : command,
      );
    }
    if (state.active_turn_id === ends.turn_id) state.active_turn_id = null;
    target.turns.finish(commit.session_id, ends.turn_id);
  }
  if (commit.turn && commit.turn.turn_id !== ends?.turn_id) {
    target.turns.progress(
      commit.session_id,
      commit.turn.turn_id,
      commit.turn.state,
      target.leaseEpoch(commit.session_id),
    );
  }
  let epoch: number | undefined;
  if (commit.claim) {
    epoch = target.claimEpoch(commit.session_id, commit.claim.holder);
    target.turns.progress(commit.session_id, commit.claim.turn_id, "running", epoch);
    target.turns.leaseTaken(commit.session_id, commit.claim.holder, epoch);
  }
  const append = (mutation: UnsequencedMutation): SessionEvent => {
    const event_id = state.events.length + 1;
    const event = {
      session_id: commit.session_id,
      event_id,
      mutation: sequencedMutation(mutation, event_id),
    };
    state.events.push(event);
    return event;
  };
  const preceding_event = commit.preceding_mutation ? append(commit.preceding_mutation) : undefined;
  const event = commit.mutation ? append(commit.mutation) : undefined;
  const interaction_events = (commit.interaction_events ?? []).map((entry) => {
    const stored: InteractionEvent = { ...entry, event_id: target.interaction_events.length + 1 };
    target.interaction_events.push(stored);
    return stored;
  });
  return structuredClone({
    ...(event ? { event } : {}),
    ...(preceding_event ? { preceding_event } : {}),
    interaction_events,
    ...(epoch === undefined ? {} : { epoch }),
    ...(auto_titled === undefined ? {} : { auto_titled }),
    ...(reportsQueuedCommands(commit) ? { queued_commands: queuedOf(state.commands) } : {}),
  });
}
