import type { AuthStore } from "@parley/session-core";
import { ParleyError } from "@parley/session-core";
import type { Logger } from "pino";
import type { ApiLimits } from "../limits/api-limits.js";
import { RateLimiter } from "../limits/rate-limiter.js";
import { OpenConnections } from "./open-connections.js";
import { TokenAuthenticator } from "./token-authenticator.js";

/**
 * Who may call, and how much, on this instance: the cached token lookup, the open long-lived
 * connections (re-checked for revocation and expiry), the per-token call rate. One per server.
 */
export class ApiAccess {
  readonly limits: ApiLimits;
  readonly authenticator: TokenAuthenticator;
  readonly connections: OpenConnections;
  readonly #rate: RateLimiter;

  constructor(options: { auth: AuthStore; limits: ApiLimits; logger: Logger }) {
    this.limits = options.limits;
    this.authenticator = new TokenAuthenticator(options.auth, { ttl_ms: options.limits.auth_cache_ms });
    this.connections = new OpenConnections({
      auth: options.auth,
      max_per_user: options.limits.connections_per_user,
      recheck_ms: options.limits.connection_recheck_ms,
      logger: options.logger,
    });
    this.#rate = new RateLimiter({
      capacity: options.limits.rate_requests,
      window_ms: options.limits.rate_window_ms,
    });
  }

  /** Counts one call against the token's rate; throws `limit_exceeded` when it is used up. */
  takeCall(token_hash: string): void {
    if (this.#rate.take(token_hash)) return;
    throw new ParleyError(
      "limit_exceeded",
      `Too many requests for this token (the limit is ${this.limits.rate_requests} per ${this.limits.rate_window_ms} ms)`,
    );
  }

  /** After the user's tokens were revoked here: forget them and close their connections now. */
  async tokensRevoked(user_id: string): Promise<void> {
    this.authenticator.forgetUser(user_id);
    await this.connections.recheck(user_id);
  }

  close(): void {
    this.connections.stop();
  }
}
