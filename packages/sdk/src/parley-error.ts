import { isParleyCode, ParleyError } from "@parley/session-core/wire";
import { TRPCClientError } from "@trpc/client";

/**
 * A server error as the domain `ParleyError` (`.code` = the server's `data.parley_code`). Failures
 * without a domain code — the network, an internal server error — are returned unchanged
 * (a `TRPCClientError`), so callers can tell "you asked for something invalid" from "it broke".
 */
export function toParleyError(error: unknown): unknown {
  if (error instanceof ParleyError) return error;
  if (error instanceof TRPCClientError) {
    const code: unknown = (error.data as { parley_code?: unknown } | undefined)?.parley_code;
    if (isParleyCode(code)) return new ParleyError(code, error.message, { cause: error });
  }
  return error;
}

/** Runs a call and rethrows its failure as `toParleyError` describes. */
export async function withParleyErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toParleyError(error);
  }
}
