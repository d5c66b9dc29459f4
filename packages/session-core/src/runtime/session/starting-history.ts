import type { SessionMessage } from "../../schema/messages.js";

/**
 * The session's messages as the first model request of a Turn started here will send them, so that
 * the request need not read them again. A prompt that starts a Turn reads the whole session with the
 * session's lock held (it gives the user message its sequence); its user message is added once
 * committed. Nothing else changes the session's messages before that request: other processes do
 * not write them without the lock (their answers need a pending Interaction, and the new Turn has
 * none yet), and the Turn's first checkpoint applies nothing (its start commit is refused while a
 * command is queued). Kept for one Turn; its first request takes it, and any other take forgets it.
 */
export class StartingHistory {
  #kept: { turn_id: string; messages: SessionMessage[] } | undefined;

  keep(turn_id: string, messages: SessionMessage[]): void {
    this.#kept = { turn_id, messages };
  }

  /** The messages kept for `turn_id`, once; undefined for any other Turn (and the kept ones are dropped). */
  take(turn_id: string): SessionMessage[] | undefined {
    const kept = this.#kept;
    this.#kept = undefined;
    return kept?.turn_id === turn_id ? kept.messages : undefined;
  }
}
