import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AuthStore, AuthUser, UserRole } from "../auth/auth-store.js";

/** The `AuthStore` contract in memory, for in-process tests: tokens kept only as SHA-256 hashes. */
export class InMemoryAuthStore implements AuthStore {
  private readonly users = new Map<string, AuthUser>();
  private readonly tokenHashes = new Map<string, string>();

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

  async issueToken(user_id: string): Promise<string> {
    const token = randomBytes(24).toString("base64url");
    this.tokenHashes.set(hash(token), user_id);
    return token;
  }

  async authenticate(token: string): Promise<AuthUser | null> {
    const user_id = this.tokenHashes.get(hash(token));
    return user_id === undefined ? null : this.getUser(user_id);
  }
}

function hash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
