/**
 * The closed set of domain error codes. Every failure that crosses a public surface (the Session
 * facade, tRPC, the SDK) carries exactly one of these; `apps/api` maps each to a tRPC code with a
 * table the compiler checks for completeness.
 */
export const PARLEY_CODES = [
  "unauthorized",
  "forbidden",
  "session_not_found",
  "session_closed",
  "interaction_not_found",
  "interaction_not_pending",
  "interaction_type_mismatch",
  "interaction_invalid_response",
  "invalid_input",
  /** A configured resource limit (connections, subscriptions, request rate) was reached. */
  "limit_exceeded",
] as const;

export type ParleyCode = (typeof PARLEY_CODES)[number];

export function isParleyCode(value: unknown): value is ParleyCode {
  return typeof value === "string" && (PARLEY_CODES as readonly string[]).includes(value);
}

/** The one error class of the domain. `message` says what was wrong and with which id. */
export class ParleyError extends Error {
  override readonly name = "ParleyError";
  readonly code: ParleyCode;

  constructor(code: ParleyCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isParleyError(error: unknown): error is ParleyError {
  return error instanceof ParleyError;
}

/**
 * Thrown by a store when an optimistic `revision` check or a lease epoch (fencing) check fails.
 * Not a public code: the runtime reloads and re-applies, or gives the session up when fenced.
 */
export class StoreConflictError extends Error {
  override readonly name = "StoreConflictError";
  readonly kind: "revision" | "fenced" | "sequence" | "queued";

  constructor(kind: "revision" | "fenced" | "sequence" | "queued", message: string) {
    super(message);
    this.kind = kind;
  }
}
