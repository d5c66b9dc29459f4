import type { Interaction } from "../schema/interaction.js";
import type { SessionMessage } from "../schema/messages.js";
import type { SessionMutation, UnsequencedMutation } from "../schema/mutation.js";
import type { WithdrawPromptResult } from "../schema/queued-prompt.js";
import type { SessionRecord } from "../schema/session.js";
import type {
  CommandSettlement,
  NewSessionCommand,
  PromptCommand,
  SessionCommand,
} from "../schema/session-command.js";
import type { TurnProgress, TurnRecord } from "../schema/turn.js";

/** A committed mutation, as the replay log (`session_events`) holds it. */
export interface SessionEvent {
  session_id: string;
  /** Per session, strictly increasing and gap-free. */
  event_id: number;
  mutation: SessionMutation;
}

export type InteractionEventKind = "created" | "resolved" | "denied" | "cancelled" | "failed";

/** The admin feed: every interaction created / answered / cancelled, in all sessions. */
export interface InteractionEvent {
  /** From one global sequence across all sessions. */
  event_id: number;
  kind: InteractionEventKind;
  session_id: string;
  interaction: Interaction;
}

/**
 * The denormalised index row of one Interaction (the admin inbox reads these). The canonical copy
 * lives in the owning tool part; both are written in the same commit.
 */
export interface InteractionRecord {
  session_id: string;
  message_id: string;
  tool_call_id: string;
  tool_name: string;
  /** Position of the interaction within its tool part's `interactions[]` (0-based). */
  ordinal: number;
  interaction: Interaction;
}

/** An Interaction with the message that holds its tool part. */
export interface InteractionWithMessage {
  record: InteractionRecord;
  message: SessionMessage;
}

/** What an answer works from, read at once (`SessionStore.getAnswerContext`). */
export interface AnswerContext {
  session: SessionRecord;
  /** The answered Interaction with its message; null unless it exists in this session. */
  interaction: InteractionWithMessage | null;
}

/**
 * One atomic revision: everything in it is committed together or not at all. The runtime builds
 * the complete new state first; the store only checks and writes.
 */
export interface SessionCommit {
  session_id: string;
  /**
   * Fencing: the lease epoch the writer holds. The store rejects the commit with
   * `StoreConflictError("fenced")` when the session's current epoch differs. Omitted for writes that
   * need no turn ownership (e.g. a `respond` taken by a non-owner: the revision check suffices).
   */
  epoch?: number;
  /**
   * A message snapshot to write. `expected_revision` is the revision the writer based its change
   * on (0 for a new message); the store rejects the commit with `StoreConflictError("revision")`
   * when the stored revision differs, and with `StoreConflictError("sequence")` when a new
   * message's `sequence` is already taken. `snapshot.revision` must be `expected_revision + 1`.
   * `changed_part_ids` (an assistant message at `expected_revision` > 0): the parts of `snapshot`
   * that differ from the stored revision; every other part is as stored, and the store need not
   * write it (parts as rows, DESIGN §10.6). Parts are never removed. Omitted: any part may differ.
   */
  message?: { snapshot: SessionMessage; expected_revision: number; changed_part_ids?: readonly string[] };
  /** Interaction index rows this revision creates or changes (upsert by `interaction_id`). */
  interactions?: InteractionRecord[];
  /** Changes to the session row. */
  session_patch?: Partial<
    Pick<
      SessionRecord,
      | "title"
      | "approval_mode"
      | "effective_approval_mode"
      | "tool_allowances"
      | "effective_tool_allowances"
      | "model_id"
      | "effective_model_id"
      | "closed_at"
      | "updated_at"
    >
  >;
  /** The mutation to append to the replay log. Omitted: nothing is published, no event id is taken. */
  mutation?: UnsequencedMutation;
  /**
   * A second mutation, logged just before `mutation` with the id before it (one commit, consecutive
   * ids), for a change of another kind that belongs with it: a Turn's `start` with its user message,
   * an assistant message's close with the Turn's `finish`. At most one mutation per message still
   * holds. Requires `mutation`.
   */
  preceding_mutation?: UnsequencedMutation;
  /** Admin feed entries for the interactions this revision changes. */
  interaction_events?: Omit<InteractionEvent, "event_id">[];
  /**
   * Queued commands this revision applies or cancels (docs/behaviour.md#commands), settled in the
   * same transaction as their effect. A command that is no longer queued fails the commit with
   * `StoreConflictError("revision")`.
   */
  settle_commands?: CommandSettlement[];
  /**
   * This revision finishes Turn `turn_id`: the session's active Turn is cleared, so the next prompt
   * starts a new Turn. Without `cancel_queued_prompts` the commit fails with
   * `StoreConflictError("queued")` while a prompt queued for that Turn is not applied yet (it joins
   * the Turn as a steer instead); with it, those prompts are cancelled in the same transaction.
   */
  ends_turn?: { turn_id: string; cancel_queued_prompts: boolean };
  /**
   * The Turn row's new state (DESIGN §10.7), written in this transaction: `running` with the Turn's
   * `start` and with any revision after which a tool or the model can go on; `waiting` with a
   * revision after which every open tool waits for a person. A Turn with no row gets one; a
   * `finished` Turn is never changed (`ends_turn` finishes it, in its own commit).
   */
  turn?: { turn_id: string; state: TurnProgress };
  /**
   * This commit claims the session's Turn for `holder` (DESIGN §10.6 checkpoint 3, §10.7): the
   * session's lease epoch advances by one (every write of an earlier holder is fenced from then
   * on) and Turn `turn_id`'s row says `running`, `holder` and the new epoch — no separate lease
   * commit. The writer must hold the session's lock (`TurnLeaseManager.lock`). Not with `epoch`.
   * `CommitResult.epoch` is the new epoch.
   */
  claim?: { holder: string; turn_id: string };
  /**
   * This commit is a prompt that starts Turn `turn_id` on an idle session (DESIGN §10.6 checkpoint 1
   * in the commit that acknowledges the prompt): the prompt is recorded as an `applied` command, the
   * session's active Turn becomes `turn_id`, and an untitled session takes `auto_title`. Refused with
   * `StoreConflictError("queued")` while the session has an active Turn or a queued command, and
   * with `StoreConflictError("revision")` when `request_id` was used before: the caller then queues
   * the prompt as usual. Comes with `claim` of the same Turn.
   */
  starts_turn?: StartsTurn;
  /**
   * The commit reports the session's queued commands (`CommitResult.queued_commands`), as they stand
   * when it commits: a command committed while it waited for the session makes it go again. A Step
   * checkpoint right after it then needs no read of the queue. Ignored with a command part
   * (`settle_commands`, `ends_turn`, `starts_turn`), which reports nothing.
   */
  report_queued_commands?: boolean;
}

/** `SessionCommit.starts_turn`: the prompt that starts the Turn, as its command row records it. */
export interface StartsTurn {
  turn_id: string;
  command_id: string;
  query: string;
  request_id?: string;
  created_at: number;
  auto_title?: string;
}

/** `enqueueCommand`'s input. */
export interface EnqueueCommandInput {
  session_id: string;
  command_id: string;
  command: NewSessionCommand;
  created_at: number;
  /**
   * `prompt`: the id of the Turn the prompt starts when the session has no active Turn; otherwise
   * the prompt joins the active Turn (a steer) and gets its id. A new Turn's row is created
   * `queued` in the same transaction.
   */
  new_turn_id?: string;
  /** Committed in the same transaction (`set`: the configured value). */
  session_patch?: SessionCommit["session_patch"];
  /**
   * A prompt's title for its session, set in the same transaction only while the session is
   * untitled (`title` is `""`: created without one, not renamed, not titled by an earlier prompt),
   * so that a rename committed first always wins.
   */
  auto_title?: string;
}

export interface EnqueueCommandResult {
  command: SessionCommand;
  /** False when a prompt with the same `request_id` was committed before (its command is returned). */
  created: boolean;
  /** True when this call's `auto_title` became the session's title. */
  auto_titled: boolean;
}

export interface CommitResult {
  /** The appended replay-log entry, when the commit carried a mutation. */
  event?: SessionEvent;
  /** The entry of `preceding_mutation` (its id is `event.event_id - 1`), when the commit carried one. */
  preceding_event?: SessionEvent;
  interaction_events: InteractionEvent[];
  /** The session's new lease epoch, when the commit carried `claim`. */
  epoch?: number;
  /** With `starts_turn`: whether the untitled session took its `auto_title`. */
  auto_titled?: boolean;
  /** With `report_queued_commands`: the session's queued commands at this commit, in queue order. */
  queued_commands?: SessionCommand[];
}

export interface MessagePage {
  items: SessionMessage[];
  has_more: boolean;
  next_before_sequence: number | null;
}

export interface SessionQuery {
  owner_id?: string;
  /** Only sessions whose title contains this text, compared case-insensitively. */
  title_contains?: string;
  cursor?: string;
  limit: number;
}

export interface SessionPage {
  items: SessionRecord[];
  next_cursor: string | null;
}

export interface InteractionQuery {
  status?: Interaction["status"];
  type?: string;
  tool_name?: string;
  session_id?: string;
  /** Restrict to sessions of this owner (members); omitted for admins. */
  owner_id?: string;
  cursor?: string;
  limit: number;
}

export interface InteractionPage {
  /** Pending first by age (oldest first); otherwise newest answered first. */
  items: InteractionRecord[];
  next_cursor: string | null;
}

/** `listSessionsWithQueuedCommands`'s page. */
export interface ListQueuedSessionsQuery {
  /** Only sessions whose id sorts after this one (by code unit). */
  after?: string;
  limit: number;
  queued_grace_ms?: number;
}

/** `listWorkNeedingDriver`'s query: the first page of each of its two lists. */
export interface WorkNeedingDriverQuery {
  /** At most this many Turns (`listTurnsNeedingDriver`'s `limit`). */
  turn_limit: number;
  /** At most this many sessions: the first page of `listSessionsWithQueuedCommands`. */
  command_session_limit: number;
  queued_grace_ms?: number;
}

/** What needs a driver now, as one liveness pass reads it. */
export interface WorkNeedingDriver {
  /** As `listTurnsNeedingDriver` returns them. */
  turns: TurnRecord[];
  /** As the first page of `listSessionsWithQueuedCommands` lists them (ascending by `session_id`). */
  command_session_ids: string[];
}

/**
 * The persistence port. Every write is `commit`, one atomic revision. Implementations: the
 * in-memory store here and the Prisma store in `@parley/db`; both must pass
 * `runSessionStoreConformance` from `@parley/session-core/testing`.
 */
export interface SessionStore {
  createSession(record: SessionRecord): Promise<void>;
  getSession(session_id: string): Promise<SessionRecord | null>;
  /** Newest first (by `created_at`, then `session_id`). */
  listSessions(query: SessionQuery): Promise<SessionPage>;

  commit(commit: SessionCommit): Promise<CommitResult>;

  getMessage(session_id: string, message_id: string): Promise<SessionMessage | null>;
  /** The newest `limit` messages before `before_sequence` (or overall), returned ascending. */
  listMessages(session_id: string, query: { before_sequence?: number; limit: number }): Promise<MessagePage>;
  /** Highest `sequence` in the session, 0 when empty. */
  lastSequence(session_id: string): Promise<number>;
  /** Assistant messages still `streaming` (open Turns), all sessions or one, ascending by sequence. */
  listOpenAssistantMessages(session_id?: string): Promise<SessionMessage[]>;

  getInteraction(interaction_id: string): Promise<InteractionRecord | null>;
  /**
   * `getSession`, and `getInteraction` with `getMessage` of its message when the Interaction is the
   * session's, in one read; null when the session does not exist.
   */
  getAnswerContext(session_id: string, interaction_id: string): Promise<AnswerContext | null>;
  /** Pending interactions of a session in occurrence order (message sequence, part sequence, ordinal). */
  listPendingInteractions(session_id: string): Promise<InteractionRecord[]>;
  countPendingInteractions(session_id: string): Promise<number>;
  queryInteractions(query: InteractionQuery): Promise<InteractionPage>;

  /**
   * Replay log after `after_event_id`, ascending, at most `limit`. A `part` or `message` mutation
   * references the stored part or message (DESIGN §10.6): it is replayed with the part or message
   * as stored now, which a later revision may have changed since.
   */
  listEvents(session_id: string, after_event_id: number, limit: number): Promise<SessionEvent[]>;
  /**
   * Global admin feed after `after_event_id`, ascending. An entry references its Interaction's
   * index row (DESIGN §10.6): it is read with the Interaction as stored now.
   */
  listInteractionEvents(after_event_id: number, limit: number): Promise<InteractionEvent[]>;

  /**
   * Commits a session command (docs/behaviour.md#commands) with the session row locked, so that it
   * is ordered against every commit of the session (a Turn's `finish` included). A closed session
   * refuses it (`ParleyError("session_closed")`). A `prompt` whose `request_id` the session has
   * seen returns the earlier command (`created: false`) and writes nothing.
   */
  enqueueCommand(input: EnqueueCommandInput): Promise<EnqueueCommandResult>;
  getCommand(session_id: string, command_id: string): Promise<SessionCommand | null>;
  /** The session's queued commands, in the order they were committed. */
  listQueuedCommands(session_id: string): Promise<SessionCommand[]>;
  /**
   * Sessions (not closed) whose queued commands need a driver now, ascending by `session_id`, after
   * `after` (a keyset page: the caller reads every page, so no cap starves a session): a queued
   * `stop`, or a queued `prompt` whose Turn is not `waiting` (a prompt behind a waiting Turn joins
   * it when an answer resumes it; a `set` waits for the next prompt). Its cost grows with the rows
   * returned. `queued_grace_ms`: a prompt of a Turn still `queued` counts only once it has been
   * queued that long, on the store's clock (the instance that committed it starts it at once; the
   * others are its safety net, and taking the lease in between would fence that instance's Turn).
   */
  listSessionsWithQueuedCommands(query: ListQueuedSessionsQuery): Promise<string[]>;
  /**
   * The queued prompts that joined a Turn (each has an earlier prompt of the same Turn: the one that
   * started it, which is never listed), in the order they were committed.
   */
  listQueuedPrompts(session_id: string): Promise<PromptCommand[]>;
  /**
   * Withdraws a queued prompt that joined a Turn (docs/behaviour.md#commands): cancelled in one
   * statement only while it is still `queued`, so of this call and a commit that applies it exactly
   * one wins (the commit then fails with `StoreConflictError("revision")` and writes nothing).
   * `not_found`: the session has no prompt with that `request_id`.
   */
  withdrawPrompt(input: {
    session_id: string;
    request_id: string;
    settled_at: number;
  }): Promise<WithdrawPromptResult["status"] | "not_found">;
  /** The Turn a prompt committed now would join (running or waiting), or null when idle. */
  getActiveTurnId(session_id: string): Promise<string | null>;
  /** The session's unfinished Turn row (`queued`, `running` or `waiting`), or null (DESIGN §10.7). */
  getActiveTurn(session_id: string): Promise<TurnRecord | null>;
  /**
   * Turns that need a driver now (DESIGN §10.7): `queued` or `running`, in an open session, whose
   * session lease no live process holds; least recently updated first, at most `limit`. Waiting
   * Turns are never returned. Its cost grows with the rows returned, not with the rows stored. A
   * `queued` Turn counts only once it has been queued `queued_grace_ms` (see
   * `listSessionsWithQueuedCommands`), measured on the store's clock.
   */
  listTurnsNeedingDriver(query: { limit: number; queued_grace_ms?: number }): Promise<TurnRecord[]>;
  /**
   * The liveness pass's read (DESIGN §10.7): `listTurnsNeedingDriver({ limit: turn_limit })` and the
   * first page of `listSessionsWithQueuedCommands({ limit: command_session_limit })`, both with
   * `queued_grace_ms`, in one statement, so that an instance at rest costs one transaction per pass.
   * The caller reads the further command pages with `listSessionsWithQueuedCommands({ after })`
   * when the first one is full.
   */
  listWorkNeedingDriver(query: WorkNeedingDriverQuery): Promise<WorkNeedingDriver>;
}
