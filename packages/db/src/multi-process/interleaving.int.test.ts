import {
  interleavedApprovalAgent,
  interleavingSeed,
  runInterleavedApprovals,
  seededRandom,
} from "@parley/session-core/testing";
import { afterEach, expect, it } from "vitest";
import { startInProcessInstances } from "../test-support/in-process-instances.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";

// The in-memory scenario of `runInterleavedApprovals` on PostgreSQL: two runtimes, each with its own
// pool, LISTEN connection and lease connection (two instances of the API in one process), started
// as the API starts them (liveness pass included). Four sessions answer approvals at once through
// either instance, twice at once, with steers and stops; the interleaving is whatever the database
// and the event loop make of it, the choices seeded (`INTERLEAVING_SEED` repeats them).

const AGENT_ID = "agent:interleaving";
const SEED = interleavingSeed(process.env.INTERLEAVING_SEED);

let database: TestDatabase | undefined;
let closeInstances: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeInstances?.();
  closeInstances = undefined;
  await database?.drop();
  database = undefined;
});

/** The scenario on a new database; `park_grace_ms` omitted: production's grace. */
async function interleavedCycles(park_grace_ms?: number) {
  database = await createTestDatabase();
  const { model, tools, effects } = interleavedApprovalAgent();
  const processes = ["A", "B"] as const;
  const started = await startInProcessInstances(database.url, processes, {
    agent: { agent_id: AGENT_ID, model, tools },
    park_grace_ms,
  });
  closeInstances = started.close;
  const runtimeOf = (name: string) => {
    const instance = started.instances[processes.indexOf(name as (typeof processes)[number])];
    if (!instance) throw new Error(`no instance ${name}`);
    return instance.composed.runtime;
  };
  const sessions = await Promise.all(
    [0, 1, 2, 3].map((index) =>
      runtimeOf(index % 2 === 0 ? "A" : "B").createSession({ owner_id: "user:owner", agent_id: AGENT_ID }),
    ),
  );

  const outcome = await runInterleavedApprovals({
    open: (name, session_id) => runtimeOf(name).openSession(session_id),
    processes,
    session_ids: sessions.map((session) => session.id),
    cycles: 8,
    random: seededRandom(SEED),
    stuck_ms: 30_000,
  });

  expect(outcome.problems).toEqual([]);
  expect(outcome.doubles).toBeGreaterThanOrEqual(4);
  expect(effects).toHaveLength(outcome.approvals);
  expect(new Set(effects).size).toBe(effects.length);
}

it(
  `approval cycles through two instances on PostgreSQL keep every tool exactly once (seed ${SEED})`,
  {
    timeout: 180_000,
  },
  () => interleavedCycles(),
);

// A grace of a millisecond: answers race the Turn's parking (the lease's release, the re-read after).
it(
  `variant: a 1 ms grace, answers racing the parking, keeps every tool exactly once (seed ${SEED})`,
  {
    timeout: 180_000,
  },
  () => interleavedCycles(1),
);
