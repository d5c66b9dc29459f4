import type { PrismaClient } from "@prisma/client";

export interface PendingByType {
  type: string;
  count: number;
  /** `created_at` (epoch ms) of the oldest pending interaction of this type. */
  oldest_created_at: number;
}

export interface TurnCounts {
  /** Open Turns (assistant messages still streaming) with no pending interaction. */
  running: number;
  /** Open Turns waiting for a person (a pending interaction in their session). */
  waiting: number;
}

/** What operators' metrics read, over all sessions of the database (each one statement). */
export class PrismaOperatorStats {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Served by the `(status, inbox_at, interaction_id)` index: only pending rows are read. */
  async pendingByType(): Promise<PendingByType[]> {
    const rows = await this.#prisma.$queryRaw<{ type: string; count: number; oldest: bigint }[]>`
      SELECT type, COUNT(*)::int AS count, MIN(created_at) AS oldest
        FROM interactions WHERE status = 'pending' GROUP BY type ORDER BY type`;
    return rows.map((row) => ({ type: row.type, count: row.count, oldest_created_at: Number(row.oldest) }));
  }

  async turns(): Promise<TurnCounts> {
    const rows = await this.#prisma.$queryRaw<{ running: number; waiting: number }[]>`
      SELECT COUNT(*) FILTER (WHERE NOT waiting)::int AS running, COUNT(*) FILTER (WHERE waiting)::int AS waiting
        FROM (SELECT EXISTS (SELECT 1 FROM interactions i
                              WHERE i.session_id = m.session_id AND i.status = 'pending') AS waiting
                FROM messages m WHERE m.type = 'assistant' AND m.status = 'streaming') AS open_turns`;
    return { running: rows[0]?.running ?? 0, waiting: rows[0]?.waiting ?? 0 };
  }
}
