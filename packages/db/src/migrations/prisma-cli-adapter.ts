import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";

/** `name` (oid 19) and `"char"` (oid 18), which adapter-pg cannot decode (prisma/orm#27403). */
const CATALOG_TYPE_OIDS = new Set([18, 19]);
const TEXT_OID = 25;

interface RawResult {
  fields?: { name: string; dataTypeID: number }[];
  rows?: unknown[];
}

/**
 * PostgreSQL 18 lists NOT NULL constraints in `pg_constraint` (`contype = 'n'`); Prisma 6.19's
 * engine does not know that kind and panics ("unreachable") while introspecting a shadow database.
 * It reads nullability from `pg_attribute` anyway, so those rows carry nothing it needs.
 */
function withoutNotNullConstraintRows(entry: RawResult): void {
  const index = entry.fields?.findIndex((field) => field.name === "constraint_type") ?? -1;
  if (index < 0 || !entry.rows) return;
  entry.rows = entry.rows.filter((row) => {
    const value = Array.isArray(row) ? row[index] : (row as Record<string, unknown>).constraint_type;
    return value !== "n";
  });
}

function adaptCatalogResult<T>(result: T): T {
  for (const entry of (Array.isArray(result) ? result : [result]) as (RawResult | undefined)[]) {
    if (!entry) continue;
    for (const field of entry.fields ?? []) {
      if (CATALOG_TYPE_OIDS.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
    }
    withoutNotNullConstraintRows(entry);
  }
  return result;
}

/**
 * A `pg.Client` whose results present `name` / `"char"` columns as `text` (and hide PostgreSQL 18's
 * NOT NULL constraint rows). The Wasm schema engine
 * introspects `pg_catalog` through the driver adapter and would otherwise fail on those columns.
 * Both the promise and the callback forms of `query` are covered (pg.Pool uses the callback one).
 */
class CatalogAsTextClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this forwards them all unchanged.
  override query(...args: any[]): any {
    const callbackIndex = args.findIndex((argument) => typeof argument === "function");
    if (callbackIndex >= 0) {
      const callback = args[callbackIndex] as (error: Error | null, result: unknown) => void;
      args[callbackIndex] = (error: Error | null, result: unknown) =>
        callback(error, error ? result : adaptCatalogResult(result));
      // biome-ignore lint/suspicious/noExplicitAny: see above.
      return (super.query as any)(...args);
    }
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const returned = (super.query as any)(...args);
    return returned instanceof Promise ? returned.then(adaptCatalogResult) : returned;
  }
}

function poolConfigFor(url: string, database?: string): pg.PoolConfig {
  const parsed = new URL(url);
  return {
    host: decodeURIComponent(parsed.hostname),
    port: parsed.port ? Number(parsed.port) : 5432,
    user: decodeURIComponent(parsed.username) || undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database: database ?? decodeURIComponent(parsed.pathname.replace(/^\//, "")),
    Client: CatalogAsTextClient,
    max: 4,
    allowExitOnIdle: true,
  };
}

/**
 * The driver-adapter factory the Prisma CLI (Wasm schema engine, `engine: "js"`) uses for
 * `migrate dev/deploy/diff/status`. It works around two adapter-pg 6.19 bugs: catalog
 * column types (plus PostgreSQL 18's NOT NULL constraint rows), and a shadow database that kept the main connection string and was dropped while
 * its pool was still connected. Here the shadow pool is built from separate fields, and disposing
 * it ends the pool first, then drops the database with FORCE.
 */
export function createPrismaCliAdapter(url: string): SqlMigrationAwareDriverAdapterFactory {
  const main = new PrismaPg(poolConfigFor(url));
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    async connectToShadowDb(): Promise<SqlDriverAdapter> {
      const shadowDatabase = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${shadowDatabase}"`);
      } finally {
        await admin.end();
      }
      const shadow = await new PrismaPg(poolConfigFor(url, shadowDatabase)).connect();
      const disposePool = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await disposePool();
        const dropper = new pg.Client({ connectionString: url });
        await dropper.connect();
        try {
          await dropper.query(`DROP DATABASE IF EXISTS "${shadowDatabase}" WITH (FORCE)`);
        } finally {
          await dropper.end();
        }
      };
      return shadow;
    },
  };
}
