import {
  encodePageCursor,
  type InboxEntryPage,
  type InboxReader,
  type InteractionQuery,
  interactionPosition,
} from "@parley/session-core";
import { Prisma } from "@prisma/client";
import type pg from "pg";
import { INTERACTION_PAGE_ORDER, interactionPageSql } from "./interaction-page.js";
import { type InteractionRow, toInteractionRecord } from "./row-mapping.js";
import { readRows } from "./sql-client.js";

type InboxRow = InteractionRow & { session_title: string; owner_id: string; owner_name: string | null };

/**
 * The admin inbox page as ONE statement: the page of `queryInteractions` (same order, same cursor)
 * joined with `sessions` and `users` after it is limited, so the joins touch only the page's rows
 * and the API makes no per-row session or owner lookups.
 */
export class PrismaInboxReader implements InboxReader {
  readonly #pool: pg.Pool;

  /** Reads through `pg` on the store's pool (see `readRows`). */
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async page(query: InteractionQuery): Promise<InboxEntryPage> {
    const rows = await readRows<InboxRow>(
      this.#pool,
      Prisma.sql`
      SELECT page.*, s.title AS session_title, s.owner_id, u.name AS owner_name
        FROM (SELECT * FROM (${interactionPageSql(query)}) AS page ${INTERACTION_PAGE_ORDER}
               LIMIT ${query.limit + 1}::int) AS page
        JOIN sessions s ON s.session_id = page.session_id
        LEFT JOIN users u ON u.user_id = s.owner_id
       ${INTERACTION_PAGE_ORDER}`,
    );
    const items = rows.slice(0, query.limit).map((row) => ({
      record: toInteractionRecord(row),
      session_title: row.session_title,
      owner_id: row.owner_id,
      owner_name: row.owner_name,
    }));
    const last = items.at(-1);
    return {
      items,
      next_cursor:
        last && rows.length > query.limit
          ? encodePageCursor("interactions", interactionPosition(last.record))
          : null,
    };
  }
}
