import { createHash } from "node:crypto";
import type { Prisma } from "@prisma/client";
import pg from "pg";

/**
 * Parsers for rows read through `pg`: BIGINT as a bigint, as `$queryRaw` returns it (`RawRow`), so
 * the row mapping is the same whichever way a row was read. Every other type as `pg` parses it
 * (JSONB parsed, INT as number, TEXT as string).
 */
const RAW_ROW_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * The session store's statements, built with `Prisma.sql` and run on `pg` without Prisma's client.
 * Measured here: a one-row `$queryRaw` costs about 0.5 ms more CPU per call than the same statement
 * through `pg` (0.74 vs 0.19 ms), in the client's request handling and row deserialisation; a
 * revision's CTE statement also spent as long being planned as being run. So each statement is
 * NAMED after its text: a connection parses it once, and Postgres may keep one generic plan for it,
 * where an unnamed statement is parsed and planned on every call. A statement's text depends only
 * on its shape (the values are parameters), so the names are few.
 */
export interface SqlClient {
  /** The rows the statement returns. */
  rows<Row extends pg.QueryResultRow>(query: Prisma.Sql): Promise<Row[]>;
  /** How many rows the statement wrote (an INSERT, UPDATE or DELETE without RETURNING). */
  count(query: Prisma.Sql): Promise<number>;
}

const statementNames = new Map<string, string>();
/** Texts named at most; past it (a shape per value would be a bug) statements run unnamed. */
const MAX_NAMED_STATEMENTS = 500;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `parley_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

function runOn(queryable: pg.Pool | pg.PoolClient): SqlClient {
  const run = <Row extends pg.QueryResultRow>(query: Prisma.Sql) => {
    // `Sql.text` joins the statement's pieces again at each read: read once.
    const { text } = query;
    return queryable.query<Row>({
      name: statementName(text),
      text,
      values: query.values,
      types: RAW_ROW_TYPES,
    });
  };
  return {
    async rows<Row extends pg.QueryResultRow>(query: Prisma.Sql) {
      return (await run<Row>(query)).rows;
    },
    async count(query) {
      return (await run(query)).rowCount ?? 0;
    },
  };
}

/** Statements on the pool, each on whichever connection is free (autocommit). */
export function poolSqlClient(pool: pg.Pool): SqlClient {
  return runOn(pool);
}

/**
 * The bounds of every transaction. `connect_ms` bounds the wait for a pool connection: under a burst
 * (1,000 answers at once on a pool of 10) commits queue in the pool for seconds, and an answer must
 * wait its turn rather than fail, so it is generous. `statement_ms` bounds each statement of a
 * started transaction, which holds the session row lock: a revision's transaction is at most four
 * statements (waiting for that row lock under contention included), so 15 s only cuts off a stuck one.
 */
export const TRANSACTION_LIMITS = { connect_ms: 30_000, statement_ms: 15_000 } as const;

/** A connection of `pool`, or an error once `ms` passed without one (a late one goes back at once). */
async function connectWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No database connection within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([connecting, timedOut]);
  } catch (error) {
    connecting.then((connection) => connection.release()).catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work` in one READ COMMITTED transaction on one connection, within `TRANSACTION_LIMITS`: committed
 * when it resolves, rolled back when it throws (and the connection discarded when even the rollback
 * fails). `first` is a statement without parameters (its values written as literals with
 * `pg.escapeLiteral`) sent with `BEGIN` in one round trip.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: SqlClient) => Promise<T>,
  first?: string,
  limits: { connect_ms: number; statement_ms: number } = TRANSACTION_LIMITS,
): Promise<T> {
  const connection = await connectWithin(pool, limits.connect_ms);
  try {
    const limit = `SET LOCAL statement_timeout = ${Math.trunc(limits.statement_ms)}`;
    await connection.query(["BEGIN", limit, ...(first === undefined ? [] : [first])].join("; "));
    const result = await work(runOn(connection));
    await connection.query("COMMIT");
    connection.release();
    return result;
  } catch (error) {
    try {
      await connection.query("ROLLBACK");
      connection.release();
    } catch (rollbackError) {
      connection.release(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
    }
    throw error;
  }
}

/** A read on the pool (see `SqlClient`). */
export function readRows<Row extends pg.QueryResultRow>(pool: pg.Pool, query: Prisma.Sql): Promise<Row[]> {
  return runOn(pool).rows<Row>(query);
}
