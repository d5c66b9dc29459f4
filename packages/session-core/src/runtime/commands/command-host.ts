/**
 * runtime/commands/: one file per session command (docs/behaviour.md#commands) — `prompt`, `set`,
 * `stop`, `close`, `respond`. A command file holds everything that command does, wherever it runs:
 * the call that commits it (any instance), and its application by whoever drives the session (the
 * Turn running here at a checkpoint, or the lease holder that reads the queue). The files work on
 * the session's host through `CommandHost` below, so that they need nothing of how the host performs
 * its lifecycle (`session/session-host.ts`), and the host calls them where a command is applied.
 */
import type { CancelReason } from "../../schema/interaction.js";
import type { TurnResult } from "../../schema/session.js";
import type { RuntimeContext } from "../runtime-context.js";
import type { TurnHandle } from "../session/session-facade.js";
import type { SessionSettings } from "../session/session-settings.js";
import type { SessionWriter } from "../session/session-writer.js";

/** A Turn run here, as a command sees it. */
export interface CommandTurn {
  readonly finished: Promise<TurnResult>;
  stop(reason: CancelReason): Promise<TurnResult>;
}

/** What a command needs of this process's host of its session. */
export interface CommandHost {
  readonly session_id: string;
  readonly context: RuntimeContext;
  readonly writer: SessionWriter;
  /** The process shuts down: it takes no command. */
  readonly isShutDown: boolean;
  /** Whether this process runs (or is starting) the session's Turn. */
  readonly ownsTurn: boolean;
  readonly activeTurn: CommandTurn | undefined;
  /** The settings the Turn run here uses; `set` applies its change to them. */
  readonly settings: SessionSettings;
  turnHandle(turn_id: string): TurnHandle;
  /**
   * Queued commands need a driver; `prompt_started`: a prompt committed here started a new Turn
   * (an idle host then takes the lease without reading the queue).
   */
  wake(prompt_started?: boolean): void;
  /**
   * Sends `stop_requested`: a Turn running here stops; else this process drives the stop when it
   * can take the lease. Resolves with the Turn that drive started, if any.
   */
  requestStop(reason: CancelReason): Promise<{ readonly finished: Promise<TurnResult> } | undefined>;
  /** The session is being closed here (its stop follows). */
  markClosing(): Promise<void>;
}
