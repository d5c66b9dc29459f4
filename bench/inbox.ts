import { migrateDatabase } from "@parley/db";
import { createScratchDatabase } from "@parley/db/testing";
import pg from "pg";
import { startParleyStack } from "./lib/parley-stack.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { seedInbox } from "./lib/seed-inbox.js";
import { now, timeRuns } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";

const PAGE = 50;

/**
 * Admin inbox query time with `inbox_interactions` interactions (`inbox_pending` pending), seeded
 * with set-based SQL. Compared with the bare SQL of the same page on a raw `pg` connection.
 */
export async function measureInbox(context: SuiteContext): Promise<Figure[]> {
  const { scale } = context;
  // Each query: three untimed calls first, then the timed ones.
  const queryRuns = { runs: scale.inbox_query_runs, warmups: 3 };
  const scratch = await createScratchDatabase(context.serverUrl, "parley_bench");
  await migrateDatabase(scratch.url);
  const seedStarted = now();
  const seed = await seedInbox(scratch.url, {
    interactions: scale.inbox_interactions,
    pending: scale.inbox_pending,
  });
  const seedSeconds = (now() - seedStarted) / 1000;
  context.log(
    `seeded ${seed.interactions} interactions (${seed.pending} pending) in ${seedSeconds.toFixed(1)} s`,
  );

  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort(), scratch });
  const raw = new pg.Client({ connectionString: scratch.url });
  await raw.connect();
  const client = stack.client();
  const note = `${seed.interactions} interactions, ${seed.pending} pending, page of ${PAGE}`;
  try {
    const figures: Figure[] = [
      valueFigure("inbox_seed_rows_per_s", "1/s", seed.interactions / seedSeconds, seed.interactions, {
        note,
      }),
    ];
    figures.push(
      latencyFigure(
        "floor_inbox_sql_ms",
        await timeRuns(queryRuns, () =>
          raw.query(
            `SELECT i.*, s.title, s.owner_id, u.name
               FROM interactions i JOIN sessions s USING (session_id) LEFT JOIN users u ON u.user_id = s.owner_id
              WHERE i.status = 'pending' ORDER BY i.inbox_at, i.interaction_id LIMIT ${PAGE}`,
          ),
        ),
        { note: "bare SQL of the first pending page, joined with session and owner" },
      ),
    );
    const store = stack.database.store;
    figures.push(
      latencyFigure(
        "inbox_store_pending_ms",
        await timeRuns(queryRuns, () => store.queryInteractions({ status: "pending", limit: PAGE })),
        { floor: "floor_inbox_sql_ms", note: "SessionStore.queryInteractions, first pending page" },
      ),
    );
    // What admin.interactions does after the store query: one getSession per distinct session of
    // the page and one getUser per owner (apps/api/src/procedures/admin-interactions.ts). Timed alone
    // to attribute the API figure's cost.
    const firstPage = await store.queryInteractions({ status: "pending", limit: PAGE });
    const pageSessionIds = [...new Set(firstPage.items.map((item) => item.session_id))];
    figures.push(
      latencyFigure(
        "inbox_page_lookups_ms",
        await timeRuns(queryRuns, async () => {
          const sessions = await Promise.all(pageSessionIds.map((id) => store.getSession(id)));
          const owners = [...new Set(sessions.flatMap((session) => (session ? [session.owner_id] : [])))];
          await Promise.all(owners.map((id) => stack.database.auth.getUser(id)));
        }),
        {
          floor: "floor_inbox_sql_ms",
          note: `the per-item lookups of one page: ${pageSessionIds.length} getSession + getUser of their owners, concurrently`,
        },
      ),
    );
    const queries: [string, Parameters<typeof client.admin.interactions>[0], string][] = [
      [
        "inbox_api_pending_ms",
        { status: "pending", limit: PAGE },
        "admin.interactions over the SDK, oldest pending first",
      ],
      [
        "inbox_api_pending_by_tool_ms",
        { status: "pending", tool_name: "shell", limit: PAGE },
        "pending, one tool",
      ],
      ["inbox_api_answered_ms", { status: "resolved", limit: PAGE }, "resolved, newest first"],
    ];
    for (const [name, input, what] of queries) {
      figures.push(
        latencyFigure(name, await timeRuns(queryRuns, () => client.admin.interactions(input)), {
          floor: "floor_inbox_sql_ms",
          note: `${what}; ${note}`,
        }),
      );
    }
    let cursor: string | null = null;
    for (let page = 0; page < 9; page++) {
      const result: { next_cursor: string | null } = await client.admin.interactions({
        status: "pending",
        limit: PAGE,
        cursor,
      });
      cursor = result.next_cursor;
    }
    const tenthPageCursor = cursor;
    figures.push(
      latencyFigure(
        "inbox_api_pending_page10_ms",
        await timeRuns(queryRuns, () =>
          client.admin.interactions({ status: "pending", limit: PAGE, cursor: tenthPageCursor }),
        ),
        { floor: "floor_inbox_sql_ms", note: "the 10th pending page, by cursor" },
      ),
    );
    return figures;
  } finally {
    await raw.end();
    await stack.close();
    await scratch.drop();
  }
}
