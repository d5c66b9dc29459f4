import type { UserRole } from "../schema/user-role.js";

/** A user as the API sees it: who they are and what their role lets them reach. */
export interface AuthUser {
  user_id: string;
  name: string;
  role: UserRole;
}

/** A token that authenticated: its user, its SHA-256 digest (to re-check it later) and its expiry. */
export interface AuthenticatedToken {
  user: AuthUser;
  token_hash: string;
  /** Epoch ms after which the token no longer authenticates; null = never. */
  expires_at: number | null;
}

/**
 * Users and API tokens (`@parley/db`'s `PrismaAuthStore` implements it; the API's tests have an
 * in-memory one). Tokens are shown once by `issueToken` and kept only as hashes, so `authenticate`
 * is the one way back from a token to its user.
 */
export interface AuthStore {
  createUser(input: { name: string; role: UserRole }): Promise<AuthUser>;
  ensureUser(input: { name: string; role: UserRole }): Promise<AuthUser>;
  findUserByName(name: string): Promise<AuthUser | null>;
  getUser(user_id: string): Promise<AuthUser | null>;
  issueToken(user_id: string, options?: { expires_at?: number | null }): Promise<string>;
  /** Null for an unknown, malformed, revoked or expired token. */
  authenticate(token: string): Promise<AuthenticatedToken | null>;
  /** Which of these digests still authenticate (one round trip for any number). */
  liveTokenHashes(token_hashes: readonly string[]): Promise<Set<string>>;
  /** Deletes every token of the user; returns how many. */
  revokeTokens(user_id: string): Promise<number>;
}
