import type { InteractionResult, SessionMutation, TurnResult } from "@parley/session-core";

type WithId<T> = T & { id: number };

/** Parent → worker. */
export type WorkerCommand = WithId<
  | { command: "create" }
  | { command: "prompt"; session_id: string; query: string }
  | { command: "respond"; session_id: string; interaction_id: string; decision: "approved" | "denied" }
  | { command: "respond-many"; session_id: string; interaction_id: string; count: number }
  | { command: "subscribe"; session_id: string }
  | { command: "recover" }
  | { command: "shutdown" }
>;

export type RespondOutcome = { ok: true; status: InteractionResult["status"] } | { ok: false; code: string };

/** Worker → parent. */
export type WorkerMessage =
  | { type: "ready"; pid: number }
  | { type: "reply"; id: number; ok: true; value: unknown }
  | { type: "reply"; id: number; ok: false; error: { message: string; code?: string } }
  | { type: "mutation"; session_id: string; mutation: SessionMutation }
  | { type: "turn-finished"; session_id: string; turn_id: string; result: TurnResult }
  | { type: "tool-running"; tool_call_id: string };
