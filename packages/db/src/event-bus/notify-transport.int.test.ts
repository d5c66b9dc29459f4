import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import type { NotifyPayload } from "./notify-payload.js";
import { NOTIFY_STATEMENT } from "./notify-statement.js";
import { NotifyTransport } from "./notify-transport.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe("NotifyTransport", () => {
  it("sends notices handed over while a NOTIFY is in flight together in the next statement, in order", async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const statements: unknown[][] = [];
    const counted = new Proxy(pool, {
      get(target, key, receiver) {
        if (key !== "query") return Reflect.get(target, key, receiver);
        return (query: pg.QueryConfig) => {
          statements.push(query.values ?? []);
          return target.query(query);
        };
      },
    });
    const received: NotifyPayload[] = [];
    const receiver = new NotifyTransport({ pool, url: database.url, channel: "coalesced" });
    const sender = new NotifyTransport({ pool: counted, url: database.url, channel: "coalesced" });
    await receiver.start({ onNotice: (notice) => received.push(notice), onReconnected: () => undefined });
    try {
      const notices: NotifyPayload[] = Array.from({ length: 50 }, (_, index) => ({
        kind: "session",
        session_id: "session:a",
        first: index + 1,
        last: index + 1,
      }));

      await Promise.all(notices.map((notice) => sender.send([notice])));
      for (let attempt = 0; received.length < notices.length && attempt < 400; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      // The first notice leaves at once; the 49 handed over meanwhile share the second statement.
      expect(statements.map((values) => (values[1] as string[]).length)).toEqual([1, 49]);
      expect(received).toEqual(notices);
    } finally {
      await receiver.close();
      await sender.close();
      await pool.end();
    }
  });

  it("sends every NOTIFY as one statement prepared once per connection", async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const sender = new NotifyTransport({ pool, url: database.url, channel: "prepared" });
    try {
      for (let index = 1; index <= 3; index += 1) {
        await sender.send([{ kind: "session", session_id: "session:a", first: index, last: index }]);
      }
      // The pool's one connection: the statements it holds prepared.
      const { rows } = await pool.query<{ name: string; statement: string }>(
        "SELECT name, statement FROM pg_prepared_statements",
      );
      expect(rows).toEqual([{ name: "parley_notify", statement: NOTIFY_STATEMENT }]);
    } finally {
      await sender.close();
      await pool.end();
    }
  });

  it("commits its NOTIFY without waiting for the WAL flush, that transaction alone", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const setting = async () =>
        (await client.query<{ value: string }>("SELECT current_setting('synchronous_commit') AS value"))
          .rows[0]?.value;
      // Whatever the test server's default (an embedded one runs without durability).
      await client.query("SET synchronous_commit = on");
      await client.query("BEGIN");
      await client.query(NOTIFY_STATEMENT, ["async-commit", ["one", "two"]]);
      expect(await setting()).toBe("off");
      await client.query("COMMIT");
      expect(await setting()).toBe("on");
    } finally {
      await client.end();
    }
  });
});
