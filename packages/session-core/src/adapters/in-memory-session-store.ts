import { ParleyError } from "../errors.js";
import type {
  AnswerContext,
  CommitResult,
  EnqueueCommandInput,
  EnqueueCommandResult,
  InteractionEvent,
  InteractionPage,
  InteractionQuery,
  InteractionRecord,
  ListQueuedSessionsQuery,
  MessagePage,
  SessionCommit,
  SessionEvent,
  SessionPage,
  SessionQuery,
  SessionStore,
  WorkNeedingDriver,
  WorkNeedingDriverQuery,
} from "../ports/session-store.js";
import type { SessionMessage } from "../schema/messages.js";
import type { WithdrawPromptResult } from "../schema/queued-prompt.js";
import type { SessionRecord } from "../schema/session.js";
import type { PromptCommand, SessionCommand } from "../schema/session-command.js";
import type { TurnRecord } from "../schema/turn.js";
import { assertCommitWellFormed } from "../store/commit-well-formedness.js";
import { decodePageCursor, encodePageCursor } from "../store/page-cursor.js";
import {
  compareInteractionPositions,
  comparePendingInteractions,
  compareSessionsNewestFirst,
  interactionPosition,
  pendingInteractionPosition,
  sessionPosition,
} from "../store/store-order.js";
import {
  applyCommit,
  checkCommit,
  type InMemoryCommitTarget,
  type InMemorySessionState,
  queuedOf,
} from "./in-memory-commit.js";
import { replayedEvents, replayedInteractionEvents } from "./in-memory-replay.js";
import { InMemoryTurns } from "./in-memory-turns.js";
import { queuedPromptsOf, withdrawPromptIn } from "./queued-prompts.js";

/**
 * Where a lease manager writes the fencing epoch it granted. The in-memory store implements it; a
 * lease manager that takes a session over sets the new epoch here before handing out the lease, so
 * every later commit of the former holder is rejected as `fenced`.
 */
export interface LeaseEpochSink {
  /** A lease was granted at `epoch`; `holder` names the process that holds it now. */
  setLeaseEpoch(session_id: string, epoch: number, holder?: string): Promise<void>;
  /** `holder`'s lease on the session ended (released, lost, or its process died). */
  leaseReleased?(session_id: string, holder: string): void;
}

/**
 * The reference `SessionStore`: every port rule held in process memory. A commit is checked in
 * full before anything is written, and runs without an `await` in between, so it is atomic with
 * respect to every other call. Everything is deep-copied on the way in and out: callers can never
 * change stored state through a reference they passed or received.
 */
export class InMemorySessionStore implements SessionStore, LeaseEpochSink {
  readonly #sessions = new Map<string, InMemorySessionState>();
  readonly #interactions = new Map<string, InteractionRecord>();
  readonly #interactionEvents: InteractionEvent[] = [];
  /** Fencing epochs by session; a session never leased has epoch 0. */
  readonly #epochs = new Map<string, number>();
  readonly #turns = new InMemoryTurns();
  readonly #commitTarget: InMemoryCommitTarget = {
    interactions: this.#interactions,
    interaction_events: this.#interactionEvents,
    turns: this.#turns,
    leaseEpoch: (session_id) => this.leaseEpoch(session_id),
    claimEpoch: (session_id) => {
      const epoch = this.leaseEpoch(session_id) + 1;
      this.#epochs.set(session_id, epoch);
      return epoch;
    },
  };

  async createSession(record: SessionRecord): Promise<void> {
    if (this.#sessions.has(record.session_id)) {
      throw new Error(`Session already exists: ${record.session_id}`);
    }
    this.#sessions.set(record.session_id, {
      record: structuredClone(record),
      messages: new Map(),
      sequences: new Map(),
      last_sequence: 0,
      interaction_ids: new Set(),
      events: [],
      commands: [],
      active_turn_id: null,
    });
  }

  async getSession(session_id: string): Promise<SessionRecord | null> {
    const state = this.#sessions.get(session_id);
    return state ? structuredClone(state.record) : null;
  }

  async listSessions(query: SessionQuery): Promise<SessionPage> {
    const after = query.cursor === undefined ? undefined : decodePageCursor("sessions", query.cursor);
    const needle = query.title_contains?.toLowerCase();
    const ordered = [...this.#sessions.values()]
      .map((state) => state.record)
      .filter((record) => query.owner_id === undefined || record.owner_id === query.owner_id)
      .filter((record) => needle === undefined || record.title.toLowerCase().includes(needle))
      .sort(compareSessionsNewestFirst);
    const remaining = after
      ? ordered.filter((record) => compareSessionsNewestFirst(record, after) > 0)
      : ordered;
    const items = remaining.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items: structuredClone(items),
      next_cursor:
        last && remaining.length > items.length ? encodePageCursor("sessions", sessionPosition(last)) : null,
    };
  }

  async commit(commit: SessionCommit): Promise<CommitResult> {
    assertCommitWellFormed(commit);
    const state = this.#requireSession(commit.session_id);
    checkCommit(this.#commitTarget, state, commit);
    return applyCommit(this.#commitTarget, state, structuredClone(commit));
  }

  async getMessage(session_id: string, message_id: string): Promise<SessionMessage | null> {
    const message = this.#sessions.get(session_id)?.messages.get(message_id);
    return message ? structuredClone(message) : null;
  }

  async listMessages(
    session_id: string,
    query: { before_sequence?: number; limit: number },
  ): Promise<MessagePage> {
    const before = query.before_sequence ?? Number.POSITIVE_INFINITY;
    const older = this.#messagesAscending(session_id).filter((message) => message.sequence < before);
    const items = query.limit > 0 ? older.slice(-query.limit) : [];
    const has_more = older.length > items.length;
    const first = items[0];
    return {
      items: structuredClone(items),
      has_more,
      next_before_sequence: has_more && first ? first.sequence : null,
    };
  }

  async lastSequence(session_id: string): Promise<number> {
    return this.#sessions.get(session_id)?.last_sequence ?? 0;
  }

  async listOpenAssistantMessages(session_id?: string): Promise<SessionMessage[]> {
    const session_ids = session_id === undefined ? [...this.#sessions.keys()].sort() : [session_id];
    const open = session_ids.flatMap((id) =>
      this.#messagesAscending(id).filter(
        (message) => message.type === "assistant" && message.status === "streaming",
      ),
    );
    return structuredClone(open);
  }

  async getInteraction(interaction_id: string): Promise<InteractionRecord | null> {
    const record = this.#interactions.get(interaction_id);
    return record ? structuredClone(record) : null;
  }

  async getAnswerContext(session_id: string, interaction_id: string): Promise<AnswerContext | null> {
    const state = this.#sessions.get(session_id);
    if (!state) return null;
    const record = this.#interactions.get(interaction_id);
    const message = record?.session_id === session_id ? state.messages.get(record.message_id) : undefined;
    const interaction = record && message ? { record, message } : null;
    return structuredClone({ session: state.record, interaction });
  }

  async listPendingInteractions(session_id: string): Promise<InteractionRecord[]> {
    const pending = this.#sessionInteractions(session_id).filter(
      (record) => record.interaction.status === "pending",
    );
    const messages = this.#sessions.get(session_id)?.messages;
    const ordered = pending
      .map((record) => ({
        record,
        key: pendingInteractionPosition(record, messages?.get(record.message_id)),
      }))
      .sort((left, right) => comparePendingInteractions(left.key, right.key))
      .map(({ record }) => record);
    return structuredClone(ordered);
  }

  async countPendingInteractions(session_id: string): Promise<number> {
    let count = 0;
    for (const record of this.#sessionInteractions(session_id)) {
      if (record.interaction.status === "pending") count += 1;
    }
    return count;
  }

  async queryInteractions(query: InteractionQuery): Promise<InteractionPage> {
    const after = query.cursor === undefined ? undefined : decodePageCursor("interactions", query.cursor);
    const matching = [...this.#interactions.values()]
      .filter((record) => this.#matchesQuery(record, query))
      .map((record) => ({ record, position: interactionPosition(record) }))
      .sort((left, right) => compareInteractionPositions(left.position, right.position));
    const remaining = after
      ? matching.filter(({ position }) => compareInteractionPositions(position, after) > 0)
      : matching;
    const page = remaining.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: structuredClone(page.map(({ record }) => record)),
      next_cursor:
        last && remaining.length > page.length ? encodePageCursor("interactions", last.position) : null,
    };
  }

  async listEvents(session_id: string, after_event_id: number, limit: number): Promise<SessionEvent[]> {
    const state = this.#sessions.get(session_id);
    const events = (state?.events ?? []).filter((event) => event.event_id > after_event_id).slice(0, limit);
    return structuredClone(replayedEvents(events, state?.messages ?? new Map()));
  }

  async listInteractionEvents(after_event_id: number, limit: number): Promise<InteractionEvent[]> {
    const events = this.#interactionEvents.filter((event) => event.event_id > after_event_id).slice(0, limit);
    return structuredClone(replayedInteractionEvents(events, this.#interactions));
  }

  async enqueueCommand(input: EnqueueCommandInput): Promise<EnqueueCommandResult> {
    const state = this.#sessions.get(input.session_id);
    if (!state) throw new ParleyError("session_not_found", `Session not found: ${input.session_id}`);
    if (state.record.closed_at !== null) {
      throw new ParleyError("session_closed", `Session is closed: ${input.session_id}`);
    }
    const { command } = input;
    const request_id = command.kind === "prompt" ? (command.request_id ?? null) : null;
    if (request_id !== null) {
      const earlier = state.commands.find((candidate) => candidate.request_id === request_id);
      if (earlier) return { command: structuredClone(earlier), created: false, auto_titled: false };
    }
    let turn_id: string | null = null;
    if (command.kind === "prompt") {
      turn_id = state.active_turn_id ?? input.new_turn_id ?? null;
      if (turn_id === null)
        throw new Error(`A prompt of an idle session needs new_turn_id: ${input.session_id}`);
      if (state.active_turn_id === null) {
        this.#turns.queue(input.session_id, turn_id, this.leaseEpoch(input.session_id));
      }
      state.active_turn_id = turn_id;
    }
    const base = {
      session_id: input.session_id,
      command_id: input.command_id,
      request_id,
      turn_id,
      status: "queued" as const,
      created_at: input.created_at,
    };
    const stored: SessionCommand =
      command.kind === "stop"
        ? { ...base, kind: "stop", input: command.input, result: null }
        : command.kind === "set"
          ? { ...base, kind: "set", input: command.input }
          : { ...base, kind: "prompt", input: command.input };
    state.commands.push(structuredClone(stored));
    if (input.session_patch) state.record = { ...state.record, ...structuredClone(input.session_patch) };
    const auto_titled = input.auto_title !== undefined && state.record.title === "";
    if (auto_titled) state.record = { ...state.record, title: input.auto_title ?? "" };
    return { command: structuredClone(stored), created: true, auto_titled };
  }

  async getCommand(session_id: string, command_id: string): Promise<SessionCommand | null> {
    const command = this.#sessions
      .get(session_id)
      ?.commands.find((candidate) => candidate.command_id === command_id);
    return command ? structuredClone(command) : null;
  }

  async listQueuedCommands(session_id: string): Promise<SessionCommand[]> {
    return structuredClone(queuedOf(this.#sessions.get(session_id)?.commands ?? []));
  }

  async listSessionsWithQueuedCommands(query: ListQueuedSessionsQuery): Promise<string[]> {
    return this.#sessionsWithQueuedCommands(query);
  }

  #sessionsWithQueuedCommands(query: ListQueuedSessionsQuery): string[] {
    const found: string[] = [];
    const queued_before = Date.now() - (query.queued_grace_ms ?? 0);
    for (const [session_id, state] of this.#sessions) {
      if (state.record.closed_at !== null) continue;
      if (query.after !== undefined && session_id <= query.after) continue;
      const turn = this.#turns.active(session_id);
      const drivable =
        turn?.state === "running" || (turn?.state === "queued" && turn.updated_at <= queued_before);
      const needy = state.commands.some(
        (command) =>
          command.status === "queued" && (command.kind === "stop" || (command.kind === "prompt" && drivable)),
      );
      if (needy) found.push(session_id);
    }
    return found.sort().slice(0, query.limit);
  }

  async getActiveTurn(session_id: string): Promise<TurnRecord | null> {
    return this.#turns.active(session_id);
  }

  async listTurnsNeedingDriver(query: { limit: number; queued_grace_ms?: number }): Promise<TurnRecord[]> {
    return this.#turnsNeedingDriver(query);
  }

  #turnsNeedingDriver(query: { limit: number; queued_grace_ms?: number }): TurnRecord[] {
    return this.#turns.needingDriver(query, (session_id) => {
      const state = this.#sessions.get(session_id);
      return state !== undefined && state.record.closed_at === null;
    });
  }

  async listWorkNeedingDriver(query: WorkNeedingDriverQuery): Promise<WorkNeedingDriver> {
    const { queued_grace_ms } = query;
    return {
      turns: this.#turnsNeedingDriver({ limit: query.turn_limit, queued_grace_ms }),
      command_session_ids: this.#sessionsWithQueuedCommands({
        limit: query.command_session_limit,
        queued_grace_ms,
      }),
    };
  }

  async listQueuedPrompts(session_id: string): Promise<PromptCommand[]> {
    return structuredClone(queuedPromptsOf(this.#sessions.get(session_id)?.commands ?? []));
  }

  async withdrawPrompt(input: {
    session_id: string;
    request_id: string;
  }): Promise<WithdrawPromptResult["status"] | "not_found"> {
    const state = this.#sessions.get(input.session_id);
    if (!state) return "not_found";
    const { index, withdrawn, status } = withdrawPromptIn(state.commands, input.request_id);
    if (withdrawn) state.commands[index] = withdrawn;
    return status;
  }

  async getActiveTurnId(session_id: string): Promise<string | null> {
    return this.#sessions.get(session_id)?.active_turn_id ?? null;
  }

  async setLeaseEpoch(session_id: string, epoch: number, holder?: string): Promise<void> {
    this.#epochs.set(session_id, epoch);
    if (holder !== undefined) this.#turns.leaseTaken(session_id, holder, epoch);
  }

  leaseReleased(session_id: string, holder: string): void {
    this.#turns.leaseGone(session_id, holder);
  }

  /** The fencing epoch commits of this session must carry (0 until a lease was granted). */
  leaseEpoch(session_id: string): number {
    return this.#epochs.get(session_id) ?? 0;
  }

  #requireSession(session_id: string): InMemorySessionState {
    const state = this.#sessions.get(session_id);
    if (!state) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
    return state;
  }

  #sessionInteractions(session_id: string): InteractionRecord[] {
    const ids = this.#sessions.get(session_id)?.interaction_ids ?? [];
    return [...ids].flatMap((id) => {
      const record = this.#interactions.get(id);
      return record ? [record] : [];
    });
  }

  #messagesAscending(session_id: string): SessionMessage[] {
    const messages = this.#sessions.get(session_id)?.messages.values() ?? [];
    return [...messages].sort((left, right) => left.sequence - right.sequence);
  }

  #matchesQuery(record: InteractionRecord, query: InteractionQuery): boolean {
    const { interaction } = record;
    if (query.status !== undefined && interaction.status !== query.status) return false;
    if (query.type !== undefined && interaction.interaction_type !== query.type) return false;
    if (query.tool_name !== undefined && record.tool_name !== query.tool_name) return false;
    if (query.session_id !== undefined && record.session_id !== query.session_id) return false;
    if (query.owner_id !== undefined) {
      return this.#sessions.get(record.session_id)?.record.owner_id === query.owner_id;
    }
    return true;
  }
}
