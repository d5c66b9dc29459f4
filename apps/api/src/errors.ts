import { isParleyCode, type ParleyCode, ParleyError } from "@parley/session-core";
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z } from "zod";

/**
 * Every domain code and the tRPC code (and so the HTTP status) it travels as. `satisfies` makes
 * the compiler reject a new `ParleyCode` until it is mapped here.
 */
export const PARLEY_TO_TRPC_CODE = {
  unauthorized: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  session_not_found: "NOT_FOUND",
  session_closed: "PRECONDITION_FAILED",
  interaction_not_found: "NOT_FOUND",
  interaction_not_pending: "CONFLICT",
  interaction_type_mismatch: "BAD_REQUEST",
  interaction_invalid_response: "BAD_REQUEST",
  invalid_input: "BAD_REQUEST",
  limit_exceeded: "TOO_MANY_REQUESTS",
} as const satisfies Record<ParleyCode, TRPC_ERROR_CODE_KEY>;

/**
 * tRPC's own failures that are the caller's fault: malformed JSON, a body over the limit, an
 * unknown procedure, a query sent as a mutation. They are bad input, never a 500.
 */
const TRPC_CODES_MEANING_INVALID_INPUT: ReadonlySet<TRPC_ERROR_CODE_KEY> = new Set<TRPC_ERROR_CODE_KEY>([
  "PARSE_ERROR",
  "BAD_REQUEST",
  "PAYLOAD_TOO_LARGE",
  "METHOD_NOT_SUPPORTED",
  "NOT_FOUND",
  "UNSUPPORTED_MEDIA_TYPE",
  "UNPROCESSABLE_CONTENT",
]);

const INTERNAL_MESSAGE = "Internal server error";

/**
 * Duck-typed so that a `ParleyError` from another copy of session-core (source vs dist) is still
 * recognised; `instanceof` alone would turn it into a 500.
 */
export function asParleyError(error: unknown): ParleyError | null {
  if (error instanceof ParleyError) return error;
  if (
    error instanceof Error &&
    error.name === "ParleyError" &&
    isParleyCode((error as { code?: unknown }).code)
  ) {
    return error as ParleyError;
  }
  return null;
}

function isZodError(error: unknown): error is z.ZodError {
  return error instanceof z.ZodError || (error instanceof Error && error.name === "ZodError");
}

/** A domain error as the `TRPCError` the wire carries; anything else is returned unchanged. */
export function toTRPCError(error: unknown): unknown {
  const parleyError = asParleyError(error);
  if (parleyError === null) return error;
  return new TRPCError({
    code: PARLEY_TO_TRPC_CODE[parleyError.code],
    message: parleyError.message,
    cause: parleyError,
  });
}

/** The `parley_code` a wire error carries, or null for an unexpected (internal) failure. */
export function parleyCodeOf(error: TRPCError): ParleyCode | null {
  const parleyError = asParleyError(error.cause);
  if (parleyError !== null) return parleyError.code;
  // A zod failure is the caller's only as input (BAD_REQUEST); a failed output check is our bug.
  if (error.code === "INTERNAL_SERVER_ERROR") return null;
  if (error.code === "UNAUTHORIZED") return "unauthorized";
  if (error.code === "FORBIDDEN") return "forbidden";
  if (error.code === "TOO_MANY_REQUESTS") return "limit_exceeded";
  if (TRPC_CODES_MEANING_INVALID_INPUT.has(error.code)) return "invalid_input";
  return null;
}

/** Whether this error is an unexpected failure that must be logged and must not leak details. */
export function isInternalError(error: TRPCError): boolean {
  return parleyCodeOf(error) === null;
}

interface ErrorShape {
  message: string;
  code: number;
  data: Record<string, unknown>;
}

/**
 * Adds `data.parley_code`, turns zod issues into a readable message, and hides the message and
 * stack of unexpected errors (they are logged by the adapter's `onError`).
 */
export function formatError<TShape extends ErrorShape>({
  shape,
  error,
}: {
  shape: TShape;
  error: TRPCError;
}): TShape & { data: { parley_code: ParleyCode | null } } {
  const parley_code = parleyCodeOf(error);
  const { stack: _stack, ...data } = shape.data;
  let message = shape.message;
  if (parley_code === null) message = INTERNAL_MESSAGE;
  else if (error.code === "BAD_REQUEST" && isZodError(error.cause)) {
    message = `Invalid input: ${z.prettifyError(error.cause)}`;
  }
  return { ...shape, message, data: { ...data, parley_code } };
}
