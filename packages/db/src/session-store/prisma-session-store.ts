import type {
  AnswerContext,
  Clock,
  CommitResult,
  EnqueueCommandInput,
  EnqueueCommandResult,
  InteractionEvent,
  InteractionPage,
  InteractionQuery,
  InteractionRecord,
  ListQueuedSessionsQuery,
  MessagePage,
  PromptCommand,
  SessionCommand,
  SessionCommit,
  SessionEvent,
  SessionMessage,
  SessionPage,
  SessionQuery,
  SessionRecord,
  SessionStore,
  TurnRecord,
  WithdrawPromptResult,
  WorkNeedingDriver,
  WorkNeedingDriverQuery,
} from "@parley/session-core";
import {
  assertCommitWellFormed,
  decodePageCursor,
  encodePageCursor,
  interactionPosition,
  sessionPosition,
  systemClock,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import type pg from "pg";
import type { CommitObserver } from "./commit-observer.js";
import { commitRevision } from "./commit-revision.js";
import { feedInteraction } from "./interaction-json.js";
import { INTERACTION_PAGE_ORDER, interactionPageSql } from "./interaction-page.js";
import { storedSnapshot } from "./message-parts.js";
import { listQueuedPrompts, withdrawPrompt } from "./queued-prompts.js";
import {
  type InteractionEventRow,
  type InteractionRow,
  type MessageRow,
  type SessionEventRow,
  type SessionRow,
  toInteractionEvent,
  toInteractionRecord,
  toMessage,
  toSessionEvent,
  toSessionRecord,
} from "./row-mapping.js";
import { COMMAND_COLUMNS, enqueueCommand, queuedCommandRows, toSessionCommand } from "./session-commands.js";
import { logEntriesBetween } from "./session-log.js";
import { poolSqlClient, type SqlClient } from "./sql-client.js";
import { columnList, valueList } from "./table-columns.js";
import { ANSWERED_INTERACTION_COLUMNS, INTERACTION_RECORD_COLUMNS, SESSION_COLUMNS } from "./tables.js";
import { TURN_SELECT, type TurnRow, toTurnRecord } from "./turn-rows.js";
import {
  listSessionsWithQueuedCommands,
  listTurnsNeedingDriver,
  listWorkNeedingDriver,
} from "./work-needing-driver.js";

/**
 * `SessionStore` on PostgreSQL, in the schema Prisma migrates: every revision one statement, one
 * round trip (see `commitRevision`), and every statement a named one on `pg` without Prisma's
 * client (see `SqlClient`). String ties sort by code unit (`COLLATE "C"`), as the conformance suite
 * fixes.
 */
export class PrismaSessionStore implements SessionStore {
  readonly #pool: pg.Pool;
  readonly #sql: SqlClient;
  readonly #clock: Clock;
  readonly #observer: CommitObserver | undefined;

  constructor(pool: pg.Pool, options: { clock?: Clock; observer?: CommitObserver } = {}) {
    this.#pool = pool;
    this.#sql = poolSqlClient(pool);
    this.#clock = options.clock ?? systemClock;
    this.#observer = options.observer;
  }

  async createSession(record: SessionRecord): Promise<void> {
    await this.#sql.count(Prisma.sql`
      INSERT INTO sessions (${columnList(SESSION_COLUMNS)}) VALUES (${valueList(SESSION_COLUMNS, record)})`);
  }

  #read<Row extends pg.QueryResultRow>(query: Prisma.Sql): Promise<Row[]> {
    return this.#sql.rows<Row>(query);
  }

  async getSession(session_id: string): Promise<SessionRecord | null> {
    const rows = await this.#read<SessionRow>(Prisma.sql`
      SELECT ${columnList(SESSION_COLUMNS)} FROM sessions WHERE session_id = ${session_id}`);
    return rows[0] ? toSessionRecord(rows[0]) : null;
  }

  async listSessions(query: SessionQuery): Promise<SessionPage> {
    const after = query.cursor === undefined ? undefined : decodePageCursor("sessions", query.cursor);
    const conditions = [Prisma.sql`TRUE`];
    if (query.owner_id !== undefined) conditions.push(Prisma.sql`owner_id = ${query.owner_id}`);
    if (query.title_contains !== undefined) {
      // strpos, not ILIKE: the searched text is literal, `%` and `_` included.
      conditions.push(Prisma.sql`strpos(lower(title), lower(${query.title_contains})) > 0`);
    }
    if (after) {
      conditions.push(Prisma.sql`(created_at < ${after.created_at}::bigint
        OR (created_at = ${after.created_at}::bigint AND session_id COLLATE "C" < ${after.session_id}))`);
    }
    const rows = await this.#read<SessionRow>(Prisma.sql`
      SELECT ${columnList(SESSION_COLUMNS)} FROM sessions
       WHERE ${Prisma.join(conditions, " AND ")}
       ORDER BY created_at DESC, session_id COLLATE "C" DESC
       LIMIT ${query.limit + 1}::int`);
    const items = rows.slice(0, query.limit).map(toSessionRecord);
    const last = items.at(-1);
    return {
      items,
      next_cursor:
        last && rows.length > query.limit ? encodePageCursor("sessions", sessionPosition(last)) : null,
    };
  }

  async commit(commit: SessionCommit): Promise<CommitResult> {
    assertCommitWellFormed(commit);
    const started = performance.now();
    const result = await commitRevision(this.#pool, commit, this.#clock.now());
    this.#observer?.committed(commit, (performance.now() - started) / 1000);
    return result;
  }

  async getMessage(session_id: string, message_id: string): Promise<SessionMessage | null> {
    const rows = await this.#read<MessageRow>(Prisma.sql`
      SELECT ${storedSnapshot("m")} AS snapshot FROM messages m
       WHERE m.session_id = ${session_id} AND m.message_id = ${message_id}`);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async listMessages(
    session_id: string,
    query: { before_sequence?: number; limit: number },
  ): Promise<MessagePage> {
    // Two shapes, as for `listOpenAssistantMessages`: under a generic plan, `($1 IS NULL OR
    // m.sequence < $1)` would walk down from the session's newest message to the page asked for.
    const before =
      query.before_sequence === undefined
        ? Prisma.empty
        : Prisma.sql`AND m.sequence < ${query.before_sequence}::int`;
    const rows = await this.#read<MessageRow>(Prisma.sql`
      SELECT ${storedSnapshot("m")} AS snapshot FROM messages m
       WHERE m.session_id = ${session_id} ${before}
       ORDER BY m.sequence DESC
       LIMIT ${query.limit + 1}::int`);
    const has_more = rows.length > query.limit;
    const items = rows.slice(0, query.limit).map(toMessage).reverse();
    return { items, has_more, next_before_sequence: has_more ? (items[0]?.sequence ?? null) : null };
  }

  async lastSequence(session_id: string): Promise<number> {
    const rows = await this.#read<{ last: number }>(Prisma.sql`
      SELECT COALESCE(MAX(sequence), 0)::int AS last FROM messages WHERE session_id = ${session_id}`);
    return rows[0]?.last ?? 0;
  }

  async listOpenAssistantMessages(session_id?: string): Promise<SessionMessage[]> {
    // Two shapes, not one with `($1 IS NULL OR m.session_id = $1)`: the statement is named, and the
    // generic plan Postgres caches for it cannot use the value, so one session's read (each park
    // and each answer's recheck) would scan every open message of every session.
    const inSession = session_id === undefined ? Prisma.empty : Prisma.sql`AND m.session_id = ${session_id}`;
    const rows = await this.#read<MessageRow>(Prisma.sql`
      SELECT ${storedSnapshot("m")} AS snapshot FROM messages m
       WHERE m.type = 'assistant' AND m.status = 'streaming' ${inSession}
       ORDER BY m.session_id COLLATE "C", m.sequence`);
    return rows.map(toMessage);
  }

  async getInteraction(interaction_id: string): Promise<InteractionRecord | null> {
    const rows = await this.#read<InteractionRow>(Prisma.sql`
      SELECT ${columnList(INTERACTION_RECORD_COLUMNS, "i")} FROM interactions i WHERE i.interaction_id = ${interaction_id} LIMIT 1`);
    return rows[0] ? toInteractionRecord(rows[0]) : null;
  }

  async getAnswerContext(session_id: string, interaction_id: string): Promise<AnswerContext | null> {
    // The Interaction's columns but `session_id`, which the session's row gives (it is null when
    // the join finds no Interaction), and its `created_at` by another name.
    const rows = await this.#read<
      SessionRow &
        Omit<InteractionRow, "session_id" | "created_at"> & {
          interaction_created_at: bigint;
          message_snapshot: unknown;
        }
    >(
      Prisma.sql`
      SELECT ${columnList(SESSION_COLUMNS, "s")}, ${columnList(ANSWERED_INTERACTION_COLUMNS, "i")},
             i.created_at AS interaction_created_at, answered.snapshot AS message_snapshot
        FROM sessions s
        LEFT JOIN interactions i ON i.session_id = s.session_id AND i.interaction_id = ${interaction_id}
        -- The Interaction's message by a whole key, looked up for the one row found (LIMIT keeps the
        -- subquery from becoming a join): planned once for all sessions, a join by the session's id
        -- alone read every message of a long session and filtered.
        LEFT JOIN LATERAL (
          SELECT ${storedSnapshot("m")} AS snapshot FROM messages m
           WHERE m.session_id = i.session_id AND m.sequence = i.message_sequence
             AND m.message_id = i.message_id
           LIMIT 1) answered ON TRUE
       WHERE s.session_id = ${session_id}`,
    );
    const row = rows[0];
    if (!row) return null;
    const answered = row.interaction_id !== null && row.message_snapshot !== null;
    return {
      session: toSessionRecord(row),
      interaction: answered
        ? {
            record: toInteractionRecord({ ...row, created_at: row.interaction_created_at }),
            message: toMessage({ snapshot: row.message_snapshot }),
          }
        : null,
    };
  }

  async listPendingInteractions(session_id: string): Promise<InteractionRecord[]> {
    const rows = await this.#read<InteractionRow>(Prisma.sql`
      SELECT ${columnList(INTERACTION_RECORD_COLUMNS, "i")} FROM interactions i
       WHERE i.session_id = ${session_id} AND i.status = 'pending'
       ORDER BY i.message_sequence, i.part_sequence, i.ordinal`);
    return rows.map(toInteractionRecord);
  }

  async countPendingInteractions(session_id: string): Promise<number> {
    const rows = await this.#read<{ pending: number }>(Prisma.sql`
      SELECT COUNT(*)::int AS pending FROM interactions WHERE session_id = ${session_id} AND status = 'pending'`);
    return rows[0]?.pending ?? 0;
  }

  /** The admin inbox order (see `interactionPageSql`). */
  async queryInteractions(query: InteractionQuery): Promise<InteractionPage> {
    const rows = await this.#read<InteractionRow>(Prisma.sql`
      SELECT * FROM (${interactionPageSql(query)}) AS page ${INTERACTION_PAGE_ORDER}
       LIMIT ${query.limit + 1}::int`);
    const items = rows.slice(0, query.limit).map(toInteractionRecord);
    const last = items.at(-1);
    return {
      items,
      next_cursor:
        last && rows.length > query.limit
          ? encodePageCursor("interactions", interactionPosition(last))
          : null,
    };
  }

  async listEvents(session_id: string, after_event_id: number, limit: number): Promise<SessionEvent[]> {
    const rows = await this.#read<SessionEventRow>(
      logEntriesBetween({ session_id, after: after_event_id, limit }),
    );
    return rows.map(toSessionEvent);
  }

  enqueueCommand(input: EnqueueCommandInput): Promise<EnqueueCommandResult> {
    return enqueueCommand(this.#sql, input);
  }

  async getCommand(session_id: string, command_id: string): Promise<SessionCommand | null> {
    const rows = await this.#read<Parameters<typeof toSessionCommand>[0]>(Prisma.sql`
      SELECT ${COMMAND_COLUMNS} FROM session_commands
       WHERE session_id = ${session_id} AND command_id = ${command_id}`);
    return rows[0] ? toSessionCommand(rows[0]) : null;
  }

  async listQueuedCommands(session_id: string): Promise<SessionCommand[]> {
    const rows = await this.#read<Parameters<typeof toSessionCommand>[0]>(
      Prisma.sql`${queuedCommandRows(session_id)} ORDER BY position`,
    );
    return rows.map(toSessionCommand);
  }

  listSessionsWithQueuedCommands(query: ListQueuedSessionsQuery): Promise<string[]> {
    return listSessionsWithQueuedCommands(this.#pool, query);
  }

  listQueuedPrompts(session_id: string): Promise<PromptCommand[]> {
    return listQueuedPrompts(this.#sql, session_id);
  }

  withdrawPrompt(input: {
    session_id: string;
    request_id: string;
    settled_at: number;
  }): Promise<WithdrawPromptResult["status"] | "not_found"> {
    return withdrawPrompt(this.#sql, input);
  }

  async getActiveTurn(session_id: string): Promise<TurnRecord | null> {
    // The unfinished Turn is the one the session's row names (migration
    // `20261206120000_turns_driven_index`): two key lookups, however many Turns the session had.
    const rows = await this.#read<TurnRow>(Prisma.sql`
      SELECT ${TURN_SELECT} FROM turns
       WHERE turns.session_id = ${session_id} AND turns.state <> 'finished'
         AND turns.turn_id = (SELECT active_turn_id FROM sessions WHERE session_id = ${session_id})`);
    return rows[0] ? toTurnRecord(rows[0]) : null;
  }

  listTurnsNeedingDriver(query: { limit: number; queued_grace_ms?: number }): Promise<TurnRecord[]> {
    return listTurnsNeedingDriver(this.#pool, query);
  }

  listWorkNeedingDriver(query: WorkNeedingDriverQuery): Promise<WorkNeedingDriver> {
    return listWorkNeedingDriver(this.#pool, query);
  }

  async getActiveTurnId(session_id: string): Promise<string | null> {
    const rows = await this.#read<{ active_turn_id: string | null }>(Prisma.sql`
      SELECT active_turn_id FROM sessions WHERE session_id = ${session_id}`);
    return rows[0]?.active_turn_id ?? null;
  }

  /**
   * Two statements: the settled mark (waits for the feed writers in flight, see `FEED_LOCK_KEY`),
   * then the rows up to it under a fresh snapshot, so an id that commits late is never skipped.
   */
  async listInteractionEvents(after_event_id: number, limit: number): Promise<InteractionEvent[]> {
    const marks = await this.#read<{ mark: bigint }>(
      Prisma.sql`SELECT parley_interaction_feed_mark() AS mark`,
    );
    const mark = marks[0]?.mark ?? 0n;
    if (mark <= BigInt(after_event_id)) return [];
    const rows = await this.#read<InteractionEventRow>(Prisma.sql`
      SELECT e.event_id, e.kind, e.session_id, ${feedInteraction("e")} AS interaction FROM interaction_events e
       WHERE e.event_id > ${after_event_id}::bigint AND e.event_id <= ${mark}::bigint
       ORDER BY e.event_id LIMIT ${limit}::int`);
    return rows.map(toInteractionEvent);
  }
}
