import pg from "pg";
import { startParleyRuntime, startParleyStack } from "./lib/parley-stack.js";
import { type Figure, valueFigure } from "./lib/report.js";
import { createScratchDatabase } from "./lib/scratch-database.js";
import { APPROVE } from "./lib/session-watch.js";
import { now, WAIT_MS, within } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { createWaitingSessions, inBatches } from "./lib/waiting-sessions.js";

/**
 * Restart recovery with `recovery_pending` pending interactions: process A leaves that many tools
 * waiting for approval and stops; process B (a new runtime over the same database) runs
 * `recover()`. Waiting Turns are parked (rows only), so recovery has nothing to resume: the figure
 * is how long its scan takes. Then every one is answered through B, which resumes each Turn by
 * replay, and the bench checks that no interaction was lost or duplicated and that each tool
 * resumed exactly once.
 */
export async function measureRecovery(context: SuiteContext): Promise<Figure[]> {
  const count = context.scale.recovery_pending;
  const scratch = await createScratchDatabase(context.serverUrl);
  try {
    const first = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort(), scratch });
    let waiting: Awaited<ReturnType<typeof createWaitingSessions>>;
    try {
      waiting = await createWaitingSessions(first, first.client(), "recover", count);
      context.log(`${waiting.length} interactions pending; stopping the first process`);
    } finally {
      await first.close();
    }
    context.log("first process stopped; recovering in a new runtime");

    const second = await startParleyRuntime(scratch.url);
    context.log("second runtime started");
    try {
      const startedAt = now();
      const recovered = await within(second.runtime.recover(), WAIT_MS, "recover()");
      const recoverReturnedAt = now();
      context.log(`recover() returned after ${(recoverReturnedAt - startedAt).toFixed(0)} ms`);
      // Every Turn waits for a person, so each is parked: rows only, nothing for recovery to resume.
      if (recovered.resumed_session_ids.length !== 0) {
        throw new Error(
          `recover() resumed ${recovered.resumed_session_ids.length} parked sessions, expected none`,
        );
      }

      // The process that commits an answer resumes its Turn by replay: the tool runs again up to its
      // request, attaches to the answered Interaction and continues, exactly once.
      const resumed = Promise.all(waiting.map((entry) => second.probe.waitResumed(entry.key)));
      const answeringAt = now();
      await inBatches(waiting, 50, async (entry) => {
        const session = await second.runtime.openSession(entry.session_id);
        if (!session) throw new Error(`session ${entry.session_id} lost`);
        await session.respond(
          { interaction_id: entry.interaction_id, response: APPROVE },
          { user_id: "bench" },
        );
      });
      context.log("answered");
      await resumed;
      const allResumedAt = now();
      context.log("every tool resumed");
      await checkExactlyOnce(scratch.url, count);
      context.log("checked: every interaction answered once");

      return [
        valueFigure("recovery_ms", "ms", recoverReturnedAt - startedAt, count, {
          note: `new runtime: recover() with ${count} parked Turns (nothing to resume; it scans and returns)`,
        }),
        valueFigure(
          "resumed_after_restart_per_s",
          "1/s",
          count / ((allResumedAt - answeringAt) / 1000),
          count,
          { note: `all ${count} answered through the new runtime → every tool resumed by replay` },
        ),
      ];
    } finally {
      await second.close();
    }
  } finally {
    await scratch.drop();
  }
}

/** Every interaction answered once, none pending, none extra. */
async function checkExactlyOnce(databaseUrl: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ status: string; count: string }>(
      "SELECT status, count(*)::text AS count FROM interactions GROUP BY status ORDER BY status",
    );
    const byStatus = Object.fromEntries(result.rows.map((row) => [row.status, Number(row.count)]));
    if (byStatus.resolved !== count || Object.keys(byStatus).length !== 1) {
      throw new Error(
        `after recovery expected ${count} resolved interactions, found ${JSON.stringify(byStatus)}`,
      );
    }
  } finally {
    await client.end();
  }
}
