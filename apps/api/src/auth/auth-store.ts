/** Roles: a `member` reaches only the sessions they own; an `admin` reaches all and the inbox. */
export type UserRole = "member" | "admin";

export interface AuthUser {
  user_id: string;
  name: string;
  role: UserRole;
}

/**
 * What the API needs from the user and token store (`@parley/db`'s `PrismaAuthStore` implements
 * it). Tokens are shown once by `issueToken` and kept only as hashes, so `authenticate` is the one
 * way back from a token to its user.
 */
export interface AuthStore {
  createUser(input: { name: string; role: UserRole }): Promise<AuthUser>;
  ensureUser(input: { name: string; role: UserRole }): Promise<AuthUser>;
  findUserByName(name: string): Promise<AuthUser | null>;
  getUser(user_id: string): Promise<AuthUser | null>;
  issueToken(user_id: string): Promise<string>;
  authenticate(token: string): Promise<AuthUser | null>;
}
