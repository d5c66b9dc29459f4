export {
  isLiveMutation,
  isParleyCode,
  LIMITS,
  PARLEY_CODES,
  type ParleyCode,
  ParleyError,
  SESSION_APPROVAL_RESPONSE_SCHEMA,
} from "@parley/session-core/wire";
export { createParleyClient, type ParleyClient, type ParleyClientOptions } from "./client.js";
export { toParleyError } from "./parley-error.js";
export type { ParleySession, RunOptions } from "./session-handle.js";
export type { InteractionHandler, TurnOutcome, WaitForTurnOptions } from "./turn-waiter.js";
export type * from "./types.js";
