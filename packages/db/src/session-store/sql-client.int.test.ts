import { Prisma } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { inTransaction, poolSqlClient } from "./sql-client.js";

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  // One connection: what one statement prepared, the next finds on the same connection.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query("CREATE TABLE sql_client_probe (id int PRIMARY KEY, note text)");
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe("SqlClient", () => {
  it("prepares a statement shape once per connection and runs it with new values each time", async () => {
    const sql = poolSqlClient(pool);
    for (const id of [1, 2, 3]) {
      await sql.count(
        Prisma.sql`INSERT INTO sql_client_probe (id, note) VALUES (${id}::int, ${`row ${id}`})`,
      );
    }
    const rows = await sql.rows<{ id: number; note: string; big: bigint }>(
      Prisma.sql`SELECT id, note, id::bigint AS big FROM sql_client_probe WHERE id >= ${2}::int ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 2, note: "row 2", big: 2n },
      { id: 3, note: "row 3", big: 3n },
    ]);
    const prepared = await pool.query<{ statement: string }>(
      "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'parley\\_%' ORDER BY statement",
    );
    expect(prepared.rows.map((row) => row.statement.trim().split(" ")[0])).toEqual(["INSERT", "SELECT"]);
  });

  it("commits a transaction's work when it resolves and writes nothing of it when it throws", async () => {
    const written = await inTransaction(pool, (tx) =>
      tx.count(Prisma.sql`INSERT INTO sql_client_probe (id, note) VALUES (${10}::int, ${"kept"})`),
    );
    expect(written).toBe(1);
    await expect(
      inTransaction(pool, async (tx) => {
        await tx.count(Prisma.sql`INSERT INTO sql_client_probe (id, note) VALUES (${11}::int, ${"dropped"})`);
        throw new Error("the work failed");
      }),
    ).rejects.toThrow("the work failed");
    const { rows } = await pool.query<{ id: number }>(
      "SELECT id FROM sql_client_probe WHERE id >= 10 ORDER BY id",
    );
    expect(rows).toEqual([{ id: 10 }]);
    // The connection went back to the pool usable, outside any transaction.
    const status = await pool.query<{ in_transaction: boolean }>(
      "SELECT now() <> statement_timestamp() AS in_transaction",
    );
    expect(status.rows).toEqual([{ in_transaction: false }]);
  });

  it("bounds a transaction: the wait for a connection, and each statement (a row lock held elsewhere)", async () => {
    const limits = { connect_ms: 200, statement_ms: 200 };
    const holder = await pool.connect();
    try {
      // The pool's one connection is taken: no transaction can start.
      await expect(inTransaction(pool, async () => "never", undefined, limits)).rejects.toThrow(
        "No database connection within 200 ms",
      );
    } finally {
      holder.release();
    }
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM sql_client_probe WHERE id = 10 FOR UPDATE");
      await expect(
        inTransaction(
          pool,
          async () => "locked",
          "SELECT 1 FROM sql_client_probe WHERE id = 10 FOR UPDATE",
          limits,
        ),
      ).rejects.toThrow("canceling statement due to statement timeout");
      await other.query("ROLLBACK");
    } finally {
      await other.end();
    }
    // The pool's connection came back usable after both.
    expect(await inTransaction(pool, (tx) => tx.rows(Prisma.sql`SELECT 1 AS one`))).toEqual([{ one: 1 }]);
  });
});
