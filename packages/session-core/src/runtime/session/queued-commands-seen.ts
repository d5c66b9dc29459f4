import type { CommitResult, SessionCommit } from "../../ports/session-store.js";
import type { SessionCommand } from "../../schema/session-command.js";

/**
 * The session's queued commands as this process's latest commit reported them, so that the Step
 * checkpoint right after a Turn's commit takes them instead of reading the queue again (one
 * statement less per Step). A Turn's commit (fenced by its epoch, or claiming the Turn) asks the
 * store for them (`SessionCommit.report_queued_commands`); the store reports them as they stand
 * when the commit commits, so the checkpoint decides as if it had read right after its commit, and
 * nothing the Turn does in between is visible. A commit that starts a Turn (`starts_turn`) is refused
 * while any command is queued, so the queue it leaves is known to be empty without a report. Any
 * other commit that reports nothing, and any command this process queues, forgets them: the
 * checkpoint then reads.
 */
export class QueuedCommandsSeen {
  #commands: SessionCommand[] | undefined;

  /** `commit`, asking for the report when it is a Turn's commit. */
  request(commit: SessionCommit): SessionCommit {
    const turns = commit.epoch !== undefined || commit.claim !== undefined;
    return turns ? { ...commit, report_queued_commands: true } : commit;
  }

  /** Keeps what the latest commit, `commit`, tells of the queue (nothing: forgotten). */
  record(commit: SessionCommit, result: CommitResult): void {
    this.#commands = commit.starts_turn ? [] : result.queued_commands;
  }

  forget(): void {
    this.#commands = undefined;
  }

  /** The reported commands, once: a second checkpoint without a commit in between reads. */
  take(): SessionCommand[] | undefined {
    const commands = this.#commands;
    this.#commands = undefined;
    return commands;
  }
}
