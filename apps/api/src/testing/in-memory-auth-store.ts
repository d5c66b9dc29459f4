import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AuthenticatedToken, AuthStore, AuthUser, UserRole } from "@parley/session-core";

interface StoredToken {
  user_id: string;
  expires_at: number | null;
}

/** The `AuthStore` contract in memory, for in-process tests: tokens kept only as SHA-256 hashes. */
export class InMemoryAuthStore implements AuthStore {
  private readonly users = new Map<string, AuthUser>();
  private readonly tokens = new Map<string, StoredToken>();

  async createUser(input: { name: string; role: UserRole }): Promise<AuthUser> {
    if (await this.findUserByName(input.name)) throw new Error(`User exists: ${input.name}`);
    const user: AuthUser = { user_id: `user:${randomUUID()}`, name: input.name, role: input.role };
    this.users.set(user.user_id, user);
    return { ...user };
  }

  async ensureUser(input: { name: string; role: UserRole }): Promise<AuthUser> {
    return (await this.findUserByName(input.name)) ?? this.createUser(input);
  }

  async findUserByName(name: string): Promise<AuthUser | null> {
    const found = [...this.users.values()].find((user) => user.name === name);
    return found === undefined ? null : { ...found };
  }

  async getUser(user_id: string): Promise<AuthUser | null> {
    const found = this.users.get(user_id);
    return found === undefined ? null : { ...found };
  }

  async issueToken(user_id: string, options: { expires_at?: number | null } = {}): Promise<string> {
    const token = randomBytes(24).toString("base64url");
    this.tokens.set(hash(token), { user_id, expires_at: options.expires_at ?? null });
    return token;
  }

  async authenticate(token: string): Promise<AuthenticatedToken | null> {
    const token_hash = hash(token);
    const stored = this.tokens.get(token_hash);
    if (stored === undefined || !isLive(stored)) return null;
    const user = await this.getUser(stored.user_id);
    return user === null ? null : { user, token_hash, expires_at: stored.expires_at };
  }

  async liveTokenHashes(token_hashes: readonly string[]): Promise<Set<string>> {
    return new Set(
      token_hashes.filter((token_hash) => {
        const stored = this.tokens.get(token_hash);
        return stored !== undefined && isLive(stored);
      }),
    );
  }

  async revokeTokens(user_id: string): Promise<number> {
    let revoked = 0;
    for (const [token_hash, stored] of this.tokens) {
      if (stored.user_id !== user_id) continue;
      this.tokens.delete(token_hash);
      revoked += 1;
    }
    return revoked;
  }
}

function isLive(stored: StoredToken): boolean {
  return stored.expires_at === null || stored.expires_at > Date.now();
}

function hash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
