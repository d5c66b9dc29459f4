import { decodePageCursor, type InteractionQuery } from "@parley/session-core";
import { Prisma } from "@prisma/client";
import { columnList } from "./table-columns.js";
import { INTERACTION_RECORD_COLUMNS } from "./tables.js";

/**
 * One page of the admin inbox order, before the final sort: two index-ordered branches — pending by
 * `inbox_at` ascending, the rest by `inbox_at` descending — each limited to `limit + 1`, to be
 * merged with `INTERACTION_PAGE_ORDER` (pending first). A cursor past the pending rows skips that
 * branch. Rows carry `INTERACTION_RECORD_COLUMNS`, `inbox_at` and `branch`.
 */
export function interactionPageSql(query: InteractionQuery): Prisma.Sql {
  const filters = [Prisma.sql`TRUE`];
  if (query.type !== undefined) filters.push(Prisma.sql`i.type = ${query.type}`);
  if (query.tool_name !== undefined) filters.push(Prisma.sql`i.tool_name = ${query.tool_name}`);
  if (query.session_id !== undefined) filters.push(Prisma.sql`i.session_id = ${query.session_id}`);
  if (query.owner_id !== undefined) {
    filters.push(
      Prisma.sql`EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = i.session_id AND s.owner_id = ${query.owner_id})`,
    );
  }
  const after = query.cursor === undefined ? undefined : decodePageCursor("interactions", query.cursor);
  const take = query.limit + 1;
  const branches: Prisma.Sql[] = [];
  if ((query.status === undefined || query.status === "pending") && (after === undefined || after.pending)) {
    const cursor = after
      ? Prisma.sql`(i.inbox_at > ${after.at}::bigint
          OR (i.inbox_at = ${after.at}::bigint AND i.interaction_id COLLATE "C" > ${after.interaction_id}))`
      : Prisma.sql`TRUE`;
    branches.push(Prisma.sql`(SELECT ${columnList(INTERACTION_RECORD_COLUMNS, "i")}, i.inbox_at, 0 AS branch FROM interactions i
       WHERE i.status = 'pending' AND ${Prisma.join(filters, " AND ")} AND ${cursor}
       ORDER BY i.inbox_at, i.interaction_id COLLATE "C" LIMIT ${take}::int)`);
  }
  if (query.status !== "pending") {
    const status =
      query.status === undefined ? Prisma.sql`i.status <> 'pending'` : Prisma.sql`i.status = ${query.status}`;
    const cursor =
      after && !after.pending
        ? Prisma.sql`(i.inbox_at < ${after.at}::bigint
            OR (i.inbox_at = ${after.at}::bigint AND i.interaction_id COLLATE "C" < ${after.interaction_id}))`
        : Prisma.sql`TRUE`;
    branches.push(Prisma.sql`(SELECT ${columnList(INTERACTION_RECORD_COLUMNS, "i")}, i.inbox_at, 1 AS branch FROM interactions i
       WHERE ${status} AND ${Prisma.join(filters, " AND ")} AND ${cursor}
       ORDER BY i.inbox_at DESC, i.interaction_id COLLATE "C" DESC LIMIT ${take}::int)`);
  }
  return Prisma.join(branches, " UNION ALL ");
}

/** The merge order of `interactionPageSql`'s rows, as `page`: pending oldest first, then the rest newest first. */
export const INTERACTION_PAGE_ORDER = Prisma.sql`ORDER BY page.branch,
  CASE WHEN page.branch = 0 THEN page.inbox_at END ASC,
  CASE WHEN page.branch = 0 THEN page.interaction_id COLLATE "C" END ASC,
  page.inbox_at DESC,
  page.interaction_id COLLATE "C" DESC`;
