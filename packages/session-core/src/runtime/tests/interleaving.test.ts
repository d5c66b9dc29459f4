import { expect, it } from "vitest";
import {
  interleavedApprovalAgent,
  interleavingSeed,
  runInterleavedApprovals,
  seededRandom,
} from "../../testing/interleaved-approvals.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";

// Approval cycles of four sessions at once over two processes of the harness, every store call of
// each process answered after 0–3 event-loop turns, so that calls interleave as round trips to a
// database do (`runInterleavedApprovals`: answers through either process, two at once, steers,
// stops). The seed is in the test's name; `INTERLEAVING_SEED` repeats one. Invariants, not timings:
// a wake-up lost and picked up by the liveness pass a second later passes here
// (`queue-wake.test.ts` holds such a case).

const SEED = interleavingSeed(process.env.INTERLEAVING_SEED);

/** The scenario on a new harness; `park_grace_ms` omitted: production's grace. */
async function interleavedCycles(park_grace_ms?: number) {
  const random = seededRandom(SEED);
  const { model, tools, effects } = interleavedApprovalAgent();
  const harness = new RuntimeHarness({
    model,
    tools,
    ...(park_grace_ms === undefined ? {} : { park_grace_ms }),
    store_latency: () =>
      new Promise<void>((resolve) => {
        let turns = Math.floor(random() * 4);
        const next = () => (turns-- <= 0 ? resolve() : setImmediate(next));
        next();
      }),
  });
  const processes = ["A", "B"] as const;
  const sessions = await Promise.all(
    [0, 1, 2, 3].map((index) => harness.createSession({ process_id: processes[index % 2] })),
  );

  const outcome = await runInterleavedApprovals({
    open: (process, session_id) => harness.runtime(process).openSession(session_id),
    processes,
    session_ids: sessions.map((session) => session.id),
    cycles: 12,
    random,
    stuck_ms: 20_000,
  });

  expect(outcome.problems).toEqual([]);
  expect(outcome.doubles).toBeGreaterThanOrEqual(4);
  expect(effects).toHaveLength(outcome.approvals);
  expect(new Set(effects).size).toBe(effects.length);
  await harness.shutdown();
}

// Answers mostly come within the grace here: the Turn waits held, and an answer in its process hands
// the answer over in its own commit.
it(
  `approval cycles over two processes under random interleaving keep every tool exactly once (seed ${SEED})`,
  {
    timeout: 120_000,
  },
  () => interleavedCycles(),
);

// A grace of a millisecond: answers race the Turn's parking (the lease's release, the re-read after).
it(
  `variant: a 1 ms grace, answers racing the parking, keeps every tool exactly once (seed ${SEED})`,
  {
    timeout: 120_000,
  },
  () => interleavedCycles(1),
);
