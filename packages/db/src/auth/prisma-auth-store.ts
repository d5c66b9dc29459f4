import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AuthenticatedToken, AuthStore, AuthUser, Clock, UserRole } from "@parley/session-core";
import { systemClock } from "@parley/session-core";
import type { PrismaClient } from "@prisma/client";
import type pg from "pg";

/** Every token starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = "parley_";

/** SHA-256 hex: what `api_tokens.token_hash` stores. Tokens are 256 random bits, so no salt is needed. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function toAuthUser(row: { user_id: string; name: string; role: string }): AuthUser {
  return { user_id: row.user_id, name: row.name, role: row.role === "admin" ? "admin" : "member" };
}

/**
 * Users and API tokens. A token's plaintext is returned once by `issueToken` and never stored;
 * `authenticate` hashes what it is given and looks the digest up (an indexed primary-key read).
 *
 * The lookups that every request makes (`authenticate`, `liveTokenHashes`) run on `lookup_pool`,
 * a small pool of their own, so a flood of bad tokens queues there and never takes a connection
 * that commits need.
 */
export class PrismaAuthStore implements AuthStore {
  readonly #prisma: PrismaClient;
  readonly #lookup: pg.Pool;
  readonly #clock: Clock;

  constructor(prisma: PrismaClient, options: { lookup_pool: pg.Pool; clock?: Clock }) {
    this.#prisma = prisma;
    this.#lookup = options.lookup_pool;
    this.#clock = options.clock ?? systemClock;
  }
  /** Creates a user; fails when the name is taken (names are unique). */
  async createUser(input: { name: string; role: UserRole }): Promise<AuthUser> {
    const row = await this.#prisma.user.create({
      data: {
        user_id: `user:${randomUUID()}`,
        name: input.name,
        role: input.role,
        created_at: BigInt(this.#clock.now()),
      },
    });
    return toAuthUser(row);
  }

  async findUserByName(name: string): Promise<AuthUser | null> {
    const row = await this.#prisma.user.findUnique({ where: { name } });
    return row ? toAuthUser(row) : null;
  }

  async getUser(user_id: string): Promise<AuthUser | null> {
    const row = await this.#prisma.user.findUnique({ where: { user_id } });
    return row ? toAuthUser(row) : null;
  }

  /**
   * The user named `name`, created with `role` if missing. An existing user keeps its id; its role
   * is raised to `admin` when asked for (never lowered), so `token create --admin` works on an
   * existing member. Safe under concurrent calls: one `INSERT … ON CONFLICT (name) DO UPDATE`
   * statement, so the unique key decides. (Prisma's `upsert` reads, then writes, and two concurrent
   * calls both try the insert and one fails with P2002.)
   */
  async ensureUser(input: { name: string; role: UserRole }): Promise<AuthUser> {
    const rows = await this.#prisma.$queryRaw<{ user_id: string; name: string; role: string }[]>`
      INSERT INTO users (user_id, name, role, created_at)
      VALUES (${`user:${randomUUID()}`}, ${input.name}, ${input.role}, ${BigInt(this.#clock.now())})
      ON CONFLICT (name) DO UPDATE
        SET role = CASE WHEN EXCLUDED.role = 'admin' THEN 'admin' ELSE users.role END
      RETURNING user_id, name, role`;
    const row = rows[0];
    if (!row) throw new Error(`ensureUser(${input.name}): INSERT … RETURNING gave no row`);
    return toAuthUser(row);
  }

  /**
   * A new random token for the user (`parley_<43 base64url chars>`); only its hash is stored.
   * `expires_at` (epoch ms) makes it stop authenticating then; default never.
   */
  async issueToken(user_id: string, options: { expires_at?: number | null } = {}): Promise<string> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const expires_at = options.expires_at ?? null;
    await this.#prisma.apiToken.create({
      data: {
        token_hash: hashToken(token),
        user_id,
        created_at: BigInt(this.#clock.now()),
        expires_at: expires_at === null ? null : BigInt(expires_at),
      },
    });
    return token;
  }

  /** The token's user, digest and expiry; null for an unknown, malformed, revoked or expired token. */
  async authenticate(token: string): Promise<AuthenticatedToken | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const token_hash = hashToken(token);
    const { rows } = await this.#lookup.query<{
      user_id: string;
      name: string;
      role: string;
      expires_at: string | null;
    }>(
      `SELECT u.user_id, u.name, u.role, t.expires_at::text AS expires_at
         FROM api_tokens t JOIN users u ON u.user_id = t.user_id
        WHERE t.token_hash = $1 AND (t.expires_at IS NULL OR t.expires_at > $2)`,
      [token_hash, this.#clock.now()],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      user: toAuthUser(row),
      token_hash,
      expires_at: row.expires_at === null ? null : Number(row.expires_at),
    };
  }

  /**
   * Which of these token digests still authenticate (exist and are unexpired): one query for any
   * number, so re-checking every open connection costs one round trip.
   */
  async liveTokenHashes(token_hashes: readonly string[]): Promise<Set<string>> {
    if (token_hashes.length === 0) return new Set();
    const { rows } = await this.#lookup.query<{ token_hash: string }>(
      `SELECT token_hash FROM api_tokens
        WHERE token_hash = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > $2)`,
      [token_hashes, this.#clock.now()],
    );
    return new Set(rows.map((row) => row.token_hash));
  }

  /** Deletes every token of the user (they fail from then on); returns how many. */
  async revokeTokens(user_id: string): Promise<number> {
    const { count } = await this.#prisma.apiToken.deleteMany({ where: { user_id } });
    return count;
  }
}
