import { type TurnRecord, turnRecordSchema } from "@parley/session-core";
import { Prisma } from "@prisma/client";

/** A `turns` row as `TURN_SELECT` reads it. */
export interface TurnRow {
  session_id: string;
  turn_id: string;
  state: string;
  holder: string | null;
  epoch: number;
  updated_at: bigint | string;
}

/** The columns of a Turn row, qualified so that they read the same in a join. */
export const TURN_SELECT = Prisma.sql`turns.session_id, turns.turn_id, turns.state, turns.holder, turns.epoch, turns.updated_at`;

export function toTurnRecord(row: TurnRow): TurnRecord {
  return turnRecordSchema.parse({ ...row, updated_at: Number(row.updated_at) });
}
