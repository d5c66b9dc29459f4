import { createDatabase } from "@parley/db";
import type { UserRole } from "@parley/session-core";

/**
 * Creates the user if needed and issues a token straight through `@parley/db`'s auth store: what
 * the CLI does, without a process start (the CLI itself is exercised by the lifecycle test).
 */
export async function issueTokenInDatabase(options: {
  database_url: string;
  user: string;
  role: UserRole;
  /** Epoch ms; default never. */
  expires_at?: number;
}): Promise<{ user_id: string; token: string }> {
  const database = await createDatabase({ url: options.database_url, migrate: false, pool_size: 1 });
  try {
    const user = await database.auth.ensureUser({ name: options.user, role: options.role });
    return {
      user_id: user.user_id,
      token: await database.auth.issueToken(user.user_id, { expires_at: options.expires_at ?? null }),
    };
  } finally {
    await database.close();
  }
}
