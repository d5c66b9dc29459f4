import pg from "pg";

/** WAL written to one relation (table or index) per cycle, by resource manager (`Heap`, `Btree`, …). */
export interface RelationWal {
  relation: string;
  resource_manager: string;
  bytes_per_cycle: number;
  records_per_cycle: number;
}

/**
 * Where the WAL from `from_lsn` to `to_lsn` went, per relation of the database at `databaseUrl`,
 * divided by `cycles` (`pg_walinspect`, PostgreSQL 15+, on the bench's private server). A record counts for
 * the relation of its first block; records of no relation (commits) are `-`. Empty when the
 * extension is not available (a shared server without it).
 */
export async function walByRelation(
  databaseUrl: string,
  from_lsn: string,
  to_lsn: string,
  cycles: number,
): Promise<RelationWal[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    const { rows } = await client.query<{
      relation: string;
      resource_manager: string;
      bytes: string;
      records: string;
    }>(
      `WITH records AS (
         SELECT record_length, resource_manager,
                (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid AS node
           FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn))
       SELECT COALESCE(pg_filenode_relation(0, node)::regclass::text, node::text, '-') AS relation,
              resource_manager, sum(record_length)::text AS bytes, count(*)::text AS records
         FROM records GROUP BY 1, 2 ORDER BY sum(record_length) DESC`,
      [from_lsn, to_lsn],
    );
    return rows.map((row) => ({
      relation: row.relation,
      resource_manager: row.resource_manager,
      bytes_per_cycle: Math.round(Number(row.bytes) / cycles),
      records_per_cycle: Number((Number(row.records) / cycles).toFixed(1)),
    }));
  } catch {
    return [];
  } finally {
    await client.end();
  }
}
