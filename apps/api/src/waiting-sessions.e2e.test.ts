import type { ParleySession } from "@parley/sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startE2eEnvironment,
} from "./testing/index.js";

const SESSIONS = 20;
const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;
/** Generous bound on conditions the API reaches in the background (parking after the last commit). */
const DEADLINE_MS = 60_000;

/** Polls `check` until it returns a value, or fails naming `what` (and the last value seen) at the deadline. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A Turn waiting for a person holds nothing (docs/behaviour.md#durability). With the API's defaults
 * (parking on), many sessions each waiting on an approval hold no advisory lock (no lease) in the
 * one API process that ran them, and every answer still resumes its Turn to completion.
 */
describe("many sessions waiting on one API process", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  const recorders: MutationRecorder[] = [];

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    for (const recorder of recorders) recorder.stop();
    await environment?.close();
  });

  /** Every advisory lock held in this test's database, by anyone. */
  async function advisoryLocks(): Promise<number> {
    const db = new pg.Client({ connectionString: environment.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ held: number }>(
        `SELECT count(*)::int AS held FROM pg_locks
          WHERE locktype = 'advisory'
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return rows[0]?.held ?? -1;
    } finally {
      await db.end();
    }
  }

  it(`${SESSIONS} sessions waiting: no advisory locks held for them (pg_locks); answering them all completes every Turn`, async () => {
    const client = environment.clientFor(alice, environment.api.url);
    const waiting: {
      session: ParleySession;
      feed: MutationRecorder;
      turn_id: string;
      interaction_id: string;
    }[] = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const session = await client.sessions.create({ title: `waiting ${index}` });
        const feed = new MutationRecorder(session, { after_event_id: 0 });
        recorders.push(feed);
        const { turn_id } = await session.prompt(`write waiting-${index}.txt: later`);
        const part = await feed.waitFor(isToolState("waiting-user"));
        return { session, feed, turn_id, interaction_id: latestInteractionIdOf(part) };
      }),
    );
    const pending = await Promise.all(waiting.map((entry) => entry.session.interactions()));
    expect(pending.map((requests) => requests.map((request) => request.interaction_id))).toEqual(
      waiting.map((entry) => [entry.interaction_id]),
    );

    // Parking follows the commit that left the tool waiting; once it has, no lease is left.
    await eventually("every waiting Turn to give its lease back", async () =>
      (await advisoryLocks()) === 0 ? true : undefined,
    );

    const results = await Promise.all(
      waiting.map((entry) =>
        entry.session.respond({ interaction_id: entry.interaction_id, response: APPROVE }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array(SESSIONS).fill("resolved"));
    const finishes = await Promise.all(waiting.map((entry) => entry.feed.waitFor(isTurnFinish)));
    expect(finishes.map((finish) => finish.variant === "turn" && finish.status)).toEqual(
      Array(SESSIONS).fill("completed"),
    );
    expect(finishes.map((finish) => finish.variant === "turn" && finish.turn_id)).toEqual(
      waiting.map((entry) => entry.turn_id),
    );
    for (const entry of waiting) {
      const tools = entry.feed.mutations.filter(
        (mutation) => mutation.variant === "part" && mutation.part.type === "tool",
      );
      expect(tools.at(-1)).toMatchObject({ part: { state: "completed", tool_name: "write_file" } });
    }
    const left = await Promise.all(waiting.map((entry) => entry.session.interactions()));
    expect(left).toEqual(Array(SESSIONS).fill([]));
    // Idle sessions hold nothing either.
    await eventually("every finished Turn to give its lease back", async () =>
      (await advisoryLocks()) === 0 ? true : undefined,
    );
  });
});
