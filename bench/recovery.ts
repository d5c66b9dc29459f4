import { createScratchDatabase } from "@parley/db/testing";
import pg from "pg";
import { startParleyRuntime, startParleyStack } from "./lib/parley-stack.js";
import { type Figure, valueFigure } from "./lib/report.js";
import { APPROVE } from "./lib/session-watch.js";
import { now, WAIT_MS, within } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";
import { createWaitingSessions, inBatches, waitHostless } from "./lib/waiting-sessions.js";

/**
 * Restart recovery with `recovery_pending` pending interactions: process A leaves that many tools
 * waiting for approval and stops; process B (a new runtime over the same database) runs
 * `recover()`. A Turn parked on a person (docs/behaviour.md#durability) needs nothing until its
 * answer, so recovery leaves it as rows; a Turn that had not parked yet when A stopped is resumed,
 * its tool running again up to its `approval.request`, which attaches to the existing pending
 * Interaction. Recovered means `recover()` returned and every such tool asks again. Then every one
 * is answered through B, and the bench checks that no interaction was lost or duplicated and that
 * each tool resumed.
 */
export async function measureRecovery(context: SuiteContext): Promise<Figure[]> {
  const count = context.scale.recovery_pending;
  const scratch = await createScratchDatabase(context.serverUrl, "parley_bench");
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
      const resumedHere = new Set(recovered.resumed_session_ids);
      context.log(
        `recover() returned after ${(recoverReturnedAt - startedAt).toFixed(0)} ms; it resumed ${resumedHere.size} of ${count} waiting Turns (the rest are parked)`,
      );
      const askAgain = waiting.filter((entry) => resumedHere.has(entry.session_id));
      await Promise.all(askAgain.map((entry) => second.probe.waitRequested(entry.key)));
      const allWaitingAgainAt = now();
      context.log("every waiting Turn is answerable; answering them");

      const answeredAt = now();
      const resumed = Promise.all(waiting.map((entry) => second.probe.waitResumed(entry.key)));
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
      await waitHostless(second.runtime);
      await checkExactlyOnce(scratch.url, count);
      context.log("checked: every interaction answered once");

      return [
        valueFigure("recovery_ms", "ms", allWaitingAgainAt - startedAt, count, {
          note: `new runtime: recover() → all ${count} pending interactions answerable (${resumedHere.size} Turns resumed, the rest parked as rows)`,
        }),
        valueFigure("recover_call_ms", "ms", recoverReturnedAt - startedAt, count, {
          note: "until recover() returned",
        }),
        valueFigure(
          "recovered_answers_resumed_per_s",
          "1/s",
          count / ((allResumedAt - answeredAt) / 1000),
          count,
          {
            note: `after the restart: all ${count} answered through the new runtime (50 at a time) → every tool resumed`,
          },
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
