import type { CommitResult, SessionCommit } from "../../ports/session-store.js";
import type { SessionMessage } from "../../schema/messages.js";
import { inJsonbKeyOrder } from "../../store/jsonb-key-order.js";

/**
 * The session's messages as the next model request of a Turn this process just took will send
 * them, so that the request need not read them again. Kept for one Turn under one lease epoch (a
 * later take-over has another epoch and reads), and taken once.
 * - A prompt that starts a Turn reads the whole session with the session's lock held (it gives the
 *   user message its sequence) and keeps it with that message (`keep`).
 * - An answer that claims a parked Turn asks its commit for the session's other messages (`request`),
 *   read with the lock held, and keeps them with the message it committed (`record`).
 * Other processes write no message of the session while this one holds its lock (their answers
 * commit a pending Interaction, and a Turn that runs here has none left when it asks the model), so
 * what is kept stays true as long as this process's own commits are added to it (`record` notes
 * each message it commits). A noted message is kept with its JSON objects' keys in the order the
 * store gives them back (`inJsonbKeyOrder`): Postgres `jsonb` reorders them, and a tool result
 * kept in the tool's order would make the model's prompt differ from a fresh read's (the browser
 * test `custom-form.spec.ts` caught that once).
 */
export class StartingHistory {
  #kept: { turn_id: string; epoch: number; messages: SessionMessage[] } | undefined;

  keep(turn_id: string, epoch: number, messages: SessionMessage[]): void {
    this.#kept = { turn_id, epoch, messages };
  }

  /** `commit`, asking for the session's other messages when it claims a Turn it does not start. */
  request(commit: SessionCommit): SessionCommit {
    return commit.claim && !commit.starts_turn ? { ...commit, report_messages: true } : commit;
  }

  /** What `commit` committed: a claim's report is kept; a message it wrote is noted in what is kept. */
  record(commit: SessionCommit, result: CommitResult): void {
    if (result.messages && commit.claim && result.epoch !== undefined) {
      this.keep(commit.claim.turn_id, result.epoch, result.messages);
    }
    const written = commit.message?.snapshot;
    if (written && this.#kept) this.#note(this.#kept.messages, written);
  }

  /** The messages kept for `turn_id` under `epoch`, once; undefined otherwise (and what was kept is dropped). */
  take(turn_id: string, epoch: number): SessionMessage[] | undefined {
    const kept = this.#kept;
    this.#kept = undefined;
    return kept?.turn_id === turn_id && kept.epoch === epoch ? kept.messages : undefined;
  }

  #note(messages: SessionMessage[], committed: SessionMessage): void {
    const written = inJsonbKeyOrder(committed);
    const index = messages.findIndex((message) => message.message_id === written.message_id);
    if (index >= 0) {
      messages[index] = written;
      return;
    }
    messages.push(written);
    messages.sort((left, right) => left.sequence - right.sequence);
  }
}
