import { runSessionStoreConformance } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll } from "vitest";
import { PostgresTurnLeaseManager } from "../leases/postgres-turn-lease-manager.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

/** One database for the file (CREATE DATABASE costs ~1 s); every case starts from emptied tables. */
let shared: { database: TestDatabase; pool: pg.Pool } | undefined;

afterAll(async () => {
  if (!shared) return;
  await shared.pool.end();
  await shared.database.drop();
});

runSessionStoreConformance("PrismaSessionStore on PostgreSQL", async () => {
  if (!shared) {
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 12 });
    shared = { database, pool };
  }
  const { database, pool } = shared;
  await pool.query(
    "TRUNCATE sessions, session_commands, turns, messages, message_parts, interactions, session_events, interaction_events RESTART IDENTITY",
  );
  const leases = new PostgresTurnLeaseManager({ url: database.url, pool, holder_id: "conformance" });
  return {
    store: new PrismaSessionStore(pool),
    leases,
    async setLeaseEpoch(session_id, epoch) {
      await pool.query("UPDATE sessions SET lease_epoch = $2 WHERE session_id = $1", [session_id, epoch]);
    },
    cleanup: () => leases.close(),
  };
});
