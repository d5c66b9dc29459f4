import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type ParleyDatabase } from "../create-database.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";

let database: TestDatabase;
let parley: ParleyDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  parley = await createDatabase({ url: database.url, pool_size: 1, auth_pool_size: 1 });
});
afterAll(async () => {
  await parley.close();
  await database.drop();
});

describe("the auth pool", () => {
  it("answers token lookups and ping while every commit-pool connection is taken", async () => {
    const admin = await parley.auth.createUser({ name: "ada", role: "admin" });
    const token = await parley.auth.issueToken(admin.user_id);
    const held: pg.PoolClient = await parley.pool.connect();
    try {
      expect(parley.pool.totalCount).toBe(1);
      expect(parley.pool.idleCount).toBe(0);
      const answers = await Promise.all([
        parley.auth.authenticate(`parley_${"x".repeat(43)}`),
        parley.auth.authenticate(token),
        parley.ping(),
        parley.auth.liveTokenHashes(["0".repeat(64)]),
      ]);
      expect(answers[0]).toBeNull();
      expect(answers[1]?.user).toStrictEqual(admin);
      expect(answers[2]).toBe(true);
      expect(answers[3]).toStrictEqual(new Set());
      expect(parley.pool.waitingCount).toBe(0);
    } finally {
      held.release();
    }
  });
});
