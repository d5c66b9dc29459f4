import { z } from "zod";

/**
 * Where a Turn is (DESIGN §10.7): `queued` (its prompt is committed, nobody started it yet),
 * `running` (a process runs it, or must: its holder may be gone), `waiting` (every open tool waits
 * for a person; nobody needs to hold it until an answer), `finished` (its `finish` is committed).
 */
export const turnStateSchema = z.enum(["queued", "running", "waiting", "finished"]);
export type TurnState = z.infer<typeof turnStateSchema>;

/**
 * The Turn row: small, one per Turn, written in the same transaction as the commit that changes the
 * Turn's state. `holder` names the last process that took the session's lease while the Turn was
 * unfinished (for operators; liveness is the lease's), `epoch` the lease epoch it took.
 */
export const turnRecordSchema = z.object({
  session_id: z.string(),
  turn_id: z.string(),
  state: turnStateSchema,
  holder: z.string().nullable(),
  epoch: z.number().int().nonnegative(),
  updated_at: z.number(),
});
export type TurnRecord = z.infer<typeof turnRecordSchema>;

/** A state a commit can move an unfinished Turn to (a Turn finishes through `ends_turn`). */
export type TurnProgress = Extract<TurnState, "running" | "waiting">;
