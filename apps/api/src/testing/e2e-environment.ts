import { createTestDatabase, type TestDatabase } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { type ApiProcess, startApiProcess } from "./api-process.js";
import { issueTokenInDatabase } from "./issue-token.js";

export interface E2eUser {
  user_id: string;
  name: string;
  token: string;
  /** A new client per call: several clients of one user are several connections. */
  client(): ParleyClient;
}

export interface E2eEnvironment {
  database: TestDatabase;
  api: ApiProcess;
  /** Bootstrapped in the database, as the CLI does (the CLI itself: `lifecycle.e2e.test.ts`). */
  admin: E2eUser;
  /** A member created through `admin.users.create`. */
  createMember(name: string): Promise<E2eUser>;
  /** A client to any URL (e.g. a proxy in front of the API). */
  clientFor(user: E2eUser, url: string): ParleyClient;
  close(): Promise<void>;
}

/**
 * A fresh database, a real API server process on it, an admin, and SDK clients
 * that are all closed at the end. Closing fails if the API logged any internal (500) error, so a
 * hidden server bug cannot pass behind a client-side retry or a lenient assertion.
 */
export async function startE2eEnvironment(options?: {
  env?: Record<string, string>;
}): Promise<E2eEnvironment> {
  const database = await createTestDatabase();
  const clients: ParleyClient[] = [];
  let api: ApiProcess | null = null;
  try {
    const [issued, launched] = await Promise.allSettled([
      issueTokenInDatabase({ database_url: database.url, user: "root", role: "admin" }),
      startApiProcess({ database_url: database.url, env: options?.env }),
    ]);
    if (launched.status === "fulfilled") api = launched.value;
    if (issued.status === "rejected") throw issued.reason;
    if (launched.status === "rejected") throw launched.reason;
    const started = launched.value;
    const adminToken = issued.value.token;
    const track = (client: ParleyClient) => {
      clients.push(client);
      return client;
    };
    const userWith = (token: string, user_id: string, name: string): E2eUser => ({
      user_id,
      name,
      token,
      client: () => track(createParleyClient({ url: started.url, token })),
    });
    const adminIdentity = await track(
      createParleyClient({ url: started.url, token: adminToken }),
    ).auth.whoami();
    const admin = userWith(adminToken, adminIdentity.user_id, adminIdentity.name);
    return {
      database,
      api: started,
      admin,
      async createMember(name) {
        const created = await admin.client().admin.users.create({ name, role: "member" });
        return userWith(created.token, created.user_id, name);
      },
      clientFor: (user, url) => track(createParleyClient({ url, token: user.token })),
      async close() {
        await Promise.all(clients.map((client) => client.close()));
        await started.stop();
        await database.drop();
        const internalErrors = started
          .output()
          .split("\n")
          .filter((line) => line.includes('"msg":"procedure failed"'));
        if (internalErrors.length > 0) {
          throw new Error(`The API answered internal errors:\n${internalErrors.join("\n")}`);
        }
      },
    };
  } catch (error) {
    await api?.stop();
    await database.drop();
    throw error;
  }
}
