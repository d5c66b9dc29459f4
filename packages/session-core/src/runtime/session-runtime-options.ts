import type { Clock, IdSource } from "../ports/clock.js";
import type { EventBus } from "../ports/event-bus.js";
import type { RuntimeLogger } from "../ports/logger.js";
import type { SessionStore } from "../ports/session-store.js";
import type { TurnLeaseManager } from "../ports/turn-lease.js";
import type { ApprovalMode } from "../schema/approval-mode.js";
import type { InteractionResult, RespondInput } from "../schema/interaction.js";
import type { SessionRecord } from "../schema/session.js";
import type { WorkspaceRef } from "../tools/define-agent-tool.js";
import type { AnswerLock } from "./session/answer-lock.js";
import type { Actor, AgentDefinition, Session } from "./session/session-facade.js";

// A port (adapters log too); re-exported here, where the runtime's modules have always found it.
export type { RuntimeLogger } from "../ports/logger.js";

export interface SessionRuntimeOptions {
  store: SessionStore;
  bus: EventBus;
  leases: TurnLeaseManager;
  /** Resolves a session's `agent_id` to its definition. */
  agents: { get(agent_id: string): AgentDefinition | undefined };
  /** Gives each session's tools their workspace (`context.workspace`). */
  resolveWorkspace?: (session: SessionRecord) => WorkspaceRef;
  clock?: Clock;
  ids?: IdSource;
  logger?: RuntimeLogger;
  /**
   * `PARLEY_STREAM_CHECKPOINT_MS` (DESIGN §10.6, default 1000): a model stream that runs this long
   * without a checkpoint gets one revision with what it streamed so far (everything else it streams
   * is live, never committed on its own).
   */
  stream_checkpoint_ms?: number;
  /**
   * A timer of its own that looks for queued session commands to drive, every this many ms
   * (default 0: none). The liveness pass (`recover()`, which the recovery loop runs every second)
   * sweeps commands already; a composition without that loop sets it (`composeRuntime`).
   */
  command_sweep_ms?: number;
  /**
   * docs/behaviour.md#durability (default true): a Turn whose open tools all wait for a person
   * gives its lease and host back; the answer's committer resumes it by replay. False keeps it held
   * while it waits.
   */
  park_waiting_turns?: boolean;
  /**
   * `PARLEY_PARK_GRACE_MS` (default 500; 0: none): how long a Turn whose open tools all wait for a
   * person stays held before it parks, so that an answer that comes at once reaches it where it
   * runs (one commit, no take-over). At most 256 Turns of a process wait held at once
   * (`ParkGrace`).
   */
  park_grace_ms?: number;
}

export interface CreateSessionInput {
  session_id?: string;
  owner_id: string;
  agent_id: string;
  title?: string;
  approval_mode?: ApprovalMode;
  /** One of the agent's models (`AgentDefinition.models`); default: the agent's default model. */
  model_id?: string;
  workspace_id?: string | null;
}

/**
 * An answer this process can take from memory (`SessionRuntimeApi.heldAnswer`). `respond` judges it
 * on the copy found, so call it in the same synchronous block, after the caller's own checks (an
 * `input` already parsed, `parseRespondInput`, for that Interaction); a copy outdated by another
 * instance's commit fails the commit's revision check and is read and judged again.
 */
export interface HeldAnswer {
  owner_id: string;
  respond(input: RespondInput, actor?: Actor): Promise<InteractionResult>;
}

/**
 * The process-wide host of sessions: composes the ports, owns every Turn this process runs, and
 * resumes Turns that no live process owns (docs/behaviour.md#durability).
 */
export interface SessionRuntimeApi {
  createSession(input: CreateSessionInput): Promise<Session>;
  /**
   * A facade over a persisted session, or null when it does not exist. `known`: the session's record
   * as the caller has just read it (an API procedure checking access), which saves reading it again.
   */
  openSession(session_id: string, known?: SessionRecord): Promise<Session | null>;
  /**
   * Asks for the session's lock now, for an answer whose context the caller is about to read (an
   * API procedure checking access): passed to `Session.respond` (`RespondPrefetch.answer_lock`), the
   * claim of a parked Turn takes it, so its round trip runs beside the read. The caller `settle`s it
   * once the answer is done, whatever the outcome. Undefined when a host of this process owns the
   * session's Turn (nothing to claim) or the runtime shut down.
   */
  lockForAnswer(session_id: string): AnswerLock | undefined;
  /**
   * When this process runs the session's Turn and a tool of it waits here for `interaction_id`: the
   * session's owner (for the caller's access check), read from nothing, and the answer to that
   * Interaction, which reads nothing either (docs/behaviour.md#durability). Undefined otherwise
   * (read the session as usual).
   */
  heldAnswer(session_id: string, interaction_id: string): HeldAnswer | undefined;
  /**
   * The liveness pass: takes over and resumes every open Turn whose owner is gone, and drives every
   * queued command that needs a driver, from one read (startup recovery; the recovery loop runs it
   * every second, so that a takeover or a command whose notice was lost happens within 2 s).
   */
  recover(): Promise<{ resumed_session_ids: string[] }>;
  /** Stops taking work and releases leases; persisted state (pending interactions) stays as it is. */
  shutdown(): Promise<void>;
}
