import type { SessionMessage } from "../../schema/messages.js";

/**
 * The session's messages as the first model request of a Turn started here will send them, so that
 * the request need not read them again. A prompt that starts a Turn reads the whole session with the
 * session's lock held (it gives the user message its sequence); its user message is added once
 * committed. Nothing else changes the session's messages before that request: other processes do
 * not write them without the lock (their answers need a pending Interaction, and the new Turn has
 * none yet), and the Turn's first checkpoint applies nothing (its start commit is refused while a
 * command is queued). Kept for one Turn under one lease epoch (a later take-over of it has another
 * epoch and reads); its first request takes it, and any other take drops it.
 *
 * Only messages read from the store are kept, with the user message (whose parts are text): a copy
 * this process committed could differ from the stored one in the order of a JSON object's keys
 * (Postgres `jsonb` orders them), and the model's prompt would differ from a fresh read's.
 */
export class StartingHistory {
  #kept: { turn_id: string; epoch: number; messages: SessionMessage[] } | undefined;

  keep(turn_id: string, epoch: number, messages: SessionMessage[]): void {
    this.#kept = { turn_id, epoch, messages };
  }

  /** The messages kept for `turn_id` under `epoch`, once; undefined otherwise (and what was kept is dropped). */
  take(turn_id: string, epoch: number): SessionMessage[] | undefined {
    const kept = this.#kept;
    this.#kept = undefined;
    return kept?.turn_id === turn_id && kept.epoch === epoch ? kept.messages : undefined;
  }
}
