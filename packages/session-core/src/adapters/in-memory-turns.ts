import type { TurnProgress, TurnRecord } from "../schema/turn.js";
import { compareTurnsNeedingDriver } from "../store/store-order.js";

/**
 * The in-memory store's Turn rows (DESIGN §10.7) and who holds each session's lease now: what the
 * `turns` table and the advisory locks are in Postgres. Each session has at most one unfinished Turn.
 */
export class InMemoryTurns {
  /** By session, then by turn id. */
  readonly #rows = new Map<string, Map<string, TurnRecord>>();
  /** Sessions whose lease a live process holds now, and who. */
  readonly #leaseHolders = new Map<string, string>();

  /** A prompt started a new Turn: its row, `queued`. */
  queue(session_id: string, turn_id: string, epoch: number): void {
    const rows = this.#sessionRows(session_id);
    if (rows.has(turn_id)) return;
    rows.set(turn_id, { session_id, turn_id, state: "queued", holder: null, epoch, updated_at: Date.now() });
  }

  /**
   * A commit moved the Turn on; a finished Turn stays finished. A row whose state and epoch the
   * commit leaves as they are is not written (its `updated_at` stays), as in Postgres.
   */
  progress(session_id: string, turn_id: string, state: TurnProgress, epoch: number): void {
    const rows = this.#sessionRows(session_id);
    const row = rows.get(turn_id);
    if (row?.state === "finished") return;
    if (row?.state === state && epoch <= row.epoch) return;
    rows.set(turn_id, {
      session_id,
      turn_id,
      state,
      holder: row?.holder ?? null,
      epoch: Math.max(epoch, row?.epoch ?? 0),
      updated_at: Date.now(),
    });
  }

  finish(session_id: string, turn_id: string): void {
    const row = this.#rows.get(session_id)?.get(turn_id);
    if (row)
      this.#sessionRows(session_id).set(turn_id, { ...row, state: "finished", updated_at: Date.now() });
  }

  /** A lease was granted: the session's unfinished Turn records its holder and epoch. */
  leaseTaken(session_id: string, holder: string, epoch: number): void {
    this.#leaseHolders.set(session_id, holder);
    const row = this.active(session_id);
    if (row)
      this.#sessionRows(session_id).set(row.turn_id, { ...row, holder, epoch, updated_at: Date.now() });
  }

  leaseGone(session_id: string, holder: string): void {
    if (this.#leaseHolders.get(session_id) === holder) this.#leaseHolders.delete(session_id);
  }

  active(session_id: string): TurnRecord | null {
    for (const row of this.#rows.get(session_id)?.values() ?? []) {
      if (row.state !== "finished") return { ...row };
    }
    return null;
  }

  needingDriver(
    query: { limit: number; queued_grace_ms?: number },
    isOpen: (session_id: string) => boolean,
  ): TurnRecord[] {
    const queued_before = Date.now() - (query.queued_grace_ms ?? 0);
    const found: TurnRecord[] = [];
    for (const [session_id, rows] of this.#rows) {
      if (this.#leaseHolders.has(session_id) || !isOpen(session_id)) continue;
      for (const row of rows.values()) {
        if (row.state === "running" || (row.state === "queued" && row.updated_at <= queued_before)) {
          found.push({ ...row });
        }
      }
    }
    found.sort(compareTurnsNeedingDriver);
    return found.slice(0, query.limit);
  }

  #sessionRows(session_id: string): Map<string, TurnRecord> {
    let rows = this.#rows.get(session_id);
    if (!rows) {
      rows = new Map();
      this.#rows.set(session_id, rows);
    }
    return rows;
  }
}
