/**
 * The resource limits of one API instance (README "Configuration"). Beyond them a call is refused
 * with `limit_exceeded` (connections, subscriptions, rate) or `invalid_input` (batch size, like the
 * 1 MiB body-size limit, docs/behaviour.md#limits); nothing else is affected.
 */
export interface ApiLimits {
  /** Open WebSocket connections and SSE streams per user on this instance. */
  connections_per_user: number;
  /** Subscriptions open at once on one WebSocket connection. */
  subscriptions_per_connection: number;
  /** Calls in one batched HTTP request. */
  batch_size: number;
  /** Calls per token per `rate_window_ms` (a token bucket refilled evenly); 0 turns the limit off. */
  rate_requests: number;
  rate_window_ms: number;
  /** How long a token lookup (found or not) is reused; also how stale a revocation may be elsewhere. */
  auth_cache_ms: number;
  /** How often open connections re-check their token (revocation elsewhere, expiry). */
  connection_recheck_ms: number;
}

export const DEFAULT_API_LIMITS: ApiLimits = {
  connections_per_user: 20,
  subscriptions_per_connection: 100,
  batch_size: 50,
  rate_requests: 6_000,
  rate_window_ms: 60_000,
  auth_cache_ms: 1_000,
  connection_recheck_ms: 1_000,
};
