import pg from "pg";
import type { WaitingSession } from "./waiting-sessions.js";

/** Every table of session data (keyed by `session_id`), parents first. */
const SESSION_TABLES = [
  "sessions",
  "messages",
  "message_parts",
  "interactions",
  "session_events",
  "interaction_events",
  "session_commands",
  "turns",
] as const;

interface Column {
  name: string;
  type: string;
  serial: boolean;
}

async function columnsOf(client: pg.Client, table: string): Promise<Column[]> {
  const { rows } = await client.query<{
    column_name: string;
    data_type: string;
    column_default: string | null;
  }>(
    `SELECT column_name, data_type, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((row) => ({
    name: row.column_name,
    type: row.data_type,
    serial: row.column_default?.startsWith("nextval(") ?? false,
  }));
}

/**
 * Seeds `count` copies of one waiting session, fast, with SQL: every row of `template` (a session the
 * real runtime left waiting on an approval, its Turn parked) is copied with the template's session id,
 * prompt key, interaction id and Turn ids replaced by fresh ones in every text and JSON column — so
 * each copy is exactly what the runtime would have committed for its prompt, and an answer resumes
 * it through the runtime like any other. Columns filled by a sequence (feed ids, command positions)
 * take new values. The copies are `<prefix><n>` for n = 1…count.
 */
export async function cloneWaitingSession(
  databaseUrl: string,
  template: WaitingSession,
  prefix: string,
  count: number,
  onProgress?: (done: number) => void,
): Promise<WaitingSession[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const columns = new Map<string, Column[]>();
    for (const table of SESSION_TABLES) columns.set(table, await columnsOf(client, table));
    const turns = await client.query<{ turn_id: string }>("SELECT turn_id FROM turns WHERE session_id = $1", [
      template.session_id,
    ]);
    const turnIds = turns.rows.map((row) => row.turn_id);
    // $1 template session id, $2 template key, $3 template interaction id, $4 key prefix, $7… its
    // Turn ids; g = copy number.
    const rewrite = (expression: string) =>
      turnIds.reduce(
        (inner, _, index) => `replace(${inner}, $${7 + index}::text, $${7 + index}::text || '_c' || g)`,
        `replace(replace(replace(${expression}, $1::text, $1::text || '_c' || g), $2::text, $4::text || g), $3::text, $3::text || '_c' || g)`,
      );
    const copyOf = (column: Column) => {
      if (column.type === "text" || column.type === "character varying") return rewrite(`"${column.name}"`);
      if (column.type === "jsonb") return `${rewrite(`"${column.name}"::text`)}::jsonb`;
      if (column.type === "json") return `${rewrite(`"${column.name}"::text`)}::json`;
      return `"${column.name}"`;
    };
    const batch = 25_000;
    for (let first = 1; first <= count; first += batch) {
      const last = Math.min(count, first + batch - 1);
      await client.query("BEGIN");
      for (const table of SESSION_TABLES) {
        const copied = (columns.get(table) ?? []).filter((column) => !column.serial);
        const names = copied.map((column) => `"${column.name}"`).join(", ");
        // A copy's sequence values keep the template's order (a queued prompt comes after the one
        // that started its Turn): rows are inserted, and take their next values, in this order.
        const serials = (columns.get(table) ?? []).filter((column) => column.serial);
        const order =
          serials.length === 0 ? "" : `ORDER BY g, ${serials.map((column) => `"${column.name}"`).join(", ")}`;
        await client.query(
          `INSERT INTO ${table} (${names})
           SELECT ${copied.map(copyOf).join(", ")}
             FROM ${table}, generate_series($5::int, $6::int) AS g
            WHERE session_id = $1 ${order}`,
          [template.session_id, template.key, template.interaction_id, prefix, first, last, ...turnIds],
        );
      }
      await client.query("COMMIT");
      onProgress?.(last);
    }
    await client.query("ANALYZE");
    return Array.from({ length: count }, (_, index) => ({
      key: `${prefix}${index + 1}`,
      session_id: `${template.session_id}_c${index + 1}`,
      interaction_id: `${template.interaction_id}_c${index + 1}`,
    }));
  } finally {
    await client.end();
  }
}
