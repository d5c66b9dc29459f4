import { randomBytes } from "node:crypto";
import pg from "pg";

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, empty database on the server of `serverUrl`; `drop()` removes it (forcing connections off). */
export async function createScratchDatabase(
  serverUrl: string,
  prefix = "parley_bench",
): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  let dropped = false;
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      const client = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
