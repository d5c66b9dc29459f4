import { createParleyClient } from "@parley/sdk";
import pg from "pg";
import { startBuiltApi } from "./built-api-process.js";
import { cloneWaitingSession } from "./clone-waiting-session.js";
import { now, WAIT_MS } from "./stats.js";
import type { WaitingSession } from "./waiting-sessions.js";

/** The template's title and file name; the copies get `idle<n>` (see `cloneWaitingSession`). */
const TEMPLATE_KEY = "idletemplate";
const COPY_PREFIX = "idle";
/** The prompt queued behind the waiting Turn (the demo model answers it with its help text). */
const QUEUED_PROMPT = { query: "then say hello", request_id: "idle-queued" };

/** Rows that say how many Sessions wait, and on what. */
export interface WaitingCounts {
  waiting_turns: number;
  other_turns: number;
  pending_interactions: number;
  queued_prompts: number;
  advisory_locks: number;
}

export async function countWaiting(databaseUrl: string, session_id?: string): Promise<WaitingCounts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // One session's rows with `session_id`, all sessions' without ($1 null).
    const { rows } = await client.query<Record<keyof WaitingCounts, number>>(
      `SELECT (SELECT count(*)::int FROM turns WHERE state = 'waiting' AND ($1::text IS NULL OR session_id = $1)) AS waiting_turns,
              (SELECT count(*)::int FROM turns WHERE state <> 'waiting' AND ($1::text IS NULL OR session_id = $1)) AS other_turns,
              (SELECT count(*)::int FROM interactions WHERE status = 'pending' AND ($1::text IS NULL OR session_id = $1)) AS pending_interactions,
              (SELECT count(*)::int FROM session_commands
                WHERE kind = 'prompt' AND status = 'queued' AND ($1::text IS NULL OR session_id = $1)) AS queued_prompts,
              (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS advisory_locks`,
      [session_id ?? null],
    );
    const row = rows[0];
    if (!row) throw new Error("no counts");
    return row;
  } finally {
    await client.end();
  }
}

/** What `count` Sessions waiting for an approval (each with `queued` prompts behind it) look like. */
function expectedCounts(count: number, queued: boolean): WaitingCounts {
  return {
    waiting_turns: count,
    other_turns: 0,
    pending_interactions: count,
    queued_prompts: queued ? count : 0,
    advisory_locks: 0,
  };
}

/** Polls until `databaseUrl` holds exactly the expected rows (a parked Turn holds no lock). */
async function waitForCounts(databaseUrl: string, expected: WaitingCounts, session_id?: string) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const counts = await countWaiting(databaseUrl, session_id);
    if (JSON.stringify(counts) === JSON.stringify(expected)) return;
    if (Date.now() > deadline)
      throw new Error(`expected ${JSON.stringify(expected)}, found ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface IdleSeed {
  /** The template first, then its copies. */
  sessions: WaitingSession[];
  template_ms: number;
  clone_ms: number;
  vacuum_ms: number;
}

/**
 * `count` Sessions each waiting for an approval (and, with `queued`, each with a prompt queued behind
 * it) in `databaseUrl`: one made through a real API process (the demo model's `write_file`, which
 * asks for approval) that is then stopped, the rest copied from its rows with SQL in a few
 * statements. Then VACUUM ANALYZE and a CHECKPOINT, so that neither autovacuum nor a checkpoint of
 * the seeding falls into a later idle window.
 */
export async function seedIdleSessions(options: {
  databaseUrl: string;
  token: string;
  port: number;
  count: number;
  queued: boolean;
  log: (message: string) => void;
}): Promise<IdleSeed> {
  const { databaseUrl, count, queued } = options;
  const templateStart = now();
  const api = await startBuiltApi({ database_url: databaseUrl, port: options.port });
  let template: WaitingSession;
  try {
    const client = createParleyClient({ url: api.url, token: options.token });
    try {
      const session = await client.sessions.create({ title: TEMPLATE_KEY });
      await session.prompt(`write ${TEMPLATE_KEY}.txt: later`);
      if (queued) {
        await waitForCounts(databaseUrl, expectedCounts(1, false), session.id);
        await session.prompt(QUEUED_PROMPT);
      }
      await waitForCounts(databaseUrl, expectedCounts(1, queued), session.id);
      const [interaction, ...more] = await session.interactions();
      if (!interaction || more.length > 0)
        throw new Error("the template session is not waiting on one approval");
      template = { key: TEMPLATE_KEY, session_id: session.id, interaction_id: interaction.interaction_id };
    } finally {
      await client.close();
    }
  } finally {
    await api.stop();
  }
  // Stopping must leave the Turn parked as it was: the copies are of these rows.
  await waitForCounts(databaseUrl, expectedCounts(1, queued));
  const cloneStart = now();
  const copies = await cloneWaitingSession(databaseUrl, template, COPY_PREFIX, count - 1);
  const vacuumStart = now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
    await client.query("CHECKPOINT");
  } finally {
    await client.end();
  }
  const done = now();
  await waitForCounts(databaseUrl, expectedCounts(count, queued));
  options.log(
    `${count} waiting${queued ? " with a queued prompt each" : ""}: template ${(cloneStart - templateStart).toFixed(0)} ms, ${count - 1} copies ${(vacuumStart - cloneStart).toFixed(0)} ms, VACUUM ANALYZE + CHECKPOINT ${(done - vacuumStart).toFixed(0)} ms`,
  );
  return {
    sessions: [template, ...copies],
    template_ms: cloneStart - templateStart,
    clone_ms: vacuumStart - cloneStart,
    vacuum_ms: done - vacuumStart,
  };
}
