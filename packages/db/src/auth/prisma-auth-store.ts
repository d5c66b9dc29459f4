import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Clock } from "@parley/session-core";
import { systemClock } from "@parley/session-core";
import type { PrismaClient } from "@prisma/client";

export type UserRole = "member" | "admin";

export interface AuthUser {
  user_id: string;
  name: string;
  role: UserRole;
}

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
 */
export class PrismaAuthStore {
  readonly #prisma: PrismaClient;
  readonly #clock: Clock;

  constructor(prisma: PrismaClient, options: { clock?: Clock } = {}) {
    this.#prisma = prisma;
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

  /** A new random token for the user (`parley_<43 base64url chars>`); only its hash is stored. */
  async issueToken(user_id: string): Promise<string> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    await this.#prisma.apiToken.create({
      data: { token_hash: hashToken(token), user_id, created_at: BigInt(this.#clock.now()) },
    });
    return token;
  }

  /** The token's user, or null for an unknown, malformed or revoked token. */
  async authenticate(token: string): Promise<AuthUser | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const row = await this.#prisma.apiToken.findUnique({
      where: { token_hash: hashToken(token) },
      include: { user: true },
    });
    return row ? toAuthUser(row.user) : null;
  }

  /** Deletes every token of the user; returns how many. */
  async revokeTokens(user_id: string): Promise<number> {
    const { count } = await this.#prisma.apiToken.deleteMany({ where: { user_id } });
    return count;
  }
}
