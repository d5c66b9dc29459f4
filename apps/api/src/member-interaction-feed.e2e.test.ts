import type { InteractionFeedEvent, InteractionResponse, ParleyClient, ParleySession } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "./faults/fault-checks.js";
import { type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/index.js";

const APPROVE: InteractionResponse = {
  type: "approval",
  outcome: "resolved",
  payload: { decision: "approved" },
};
const DENY: InteractionResponse = { type: "approval", outcome: "denied", payload: { decision: "denied" } };

/** A subscription to `session.onInteraction` that records what arrives and whether it has started. */
function record(client: ParleyClient, after_event_id?: number) {
  const events: InteractionFeedEvent[] = [];
  const errors: unknown[] = [];
  let started = false;
  const stop = client.sessions.subscribeInteractions((event) => void events.push(event), {
    ...(after_event_id === undefined ? {} : { after_event_id }),
    onStarted: () => {
      started = true;
    },
    onError: (error) => errors.push(error),
  });
  return {
    events,
    errors,
    stop,
    /** Resolves once the server listens and has replayed everything after `after_event_id`. */
    started: () => waitUntil("the feed to start", () => (started ? true : undefined), 10_000),
  };
}

/** What a test compares: the kind and session of each event, in order. */
function kindsOf(events: readonly InteractionFeedEvent[]) {
  return events.map((event) => ({ kind: event.kind, session_id: event.session_id }));
}

/** Each entry by what it names: the feed references Interactions, so a replay shows them as stored now. */
function referencesOf(events: readonly (InteractionFeedEvent | undefined)[]) {
  return events.map((event) => event && { ...event, interaction: event.interaction.interaction_id });
}

/** Runs one approval-asking prompt to its end, answering its one approval with `answer`. */
async function runAnswered(session: ParleySession, query: string, answer: InteractionResponse) {
  const outcome = await session.run(query, { onInteraction: () => answer });
  expect(outcome.status).toBe("completed");
}

/**
 * `session.onInteraction` (docs/behaviour.md#subscriptions): a member's live feed of the
 * interactions of their own sessions, what the web app's title and Inbox counts follow. Another
 * member's events never reach it, live or replayed (§10.8).
 */
describe("session.onInteraction: the interaction feed of the caller's sessions", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  let bob: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    [alice, bob] = await Promise.all([environment.createMember("alice"), environment.createMember("bob")]);
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("alice sees her sessions' created and answered requests, never bob's; resumes after lastEventId", async () => {
    const aliceFeed = record(alice.client());
    const bobFeed = record(bob.client());
    // An admin's feed holds every session's events (as admin.onInteraction): the control that bob's exist.
    const adminFeed = record(environment.admin.client());
    await Promise.all([aliceFeed.started(), bobFeed.started(), adminFeed.started()]);

    const bobSession = await bob.client().sessions.create({ title: "bob's" });
    const aliceSession = await alice.client().sessions.create({ title: "alice's" });
    // Interleaved in the one global sequence: bob, alice, bob, alice.
    await runAnswered(bobSession, "write bob.txt: b", APPROVE);
    await runAnswered(aliceSession, "write alice.txt: a", APPROVE);
    await runAnswered(bobSession, "write bob2.txt: b", DENY);
    await runAnswered(aliceSession, "write alice2.txt: a", DENY);

    const everything = await waitUntil("the admin feed to see all eight events", () =>
      adminFeed.events.length >= 8 ? adminFeed.events : undefined,
    );
    const bobs = { session_id: bobSession.id };
    const alices = { session_id: aliceSession.id };
    expect(kindsOf(everything)).toEqual([
      { kind: "created", ...bobs },
      { kind: "resolved", ...bobs },
      { kind: "created", ...alices },
      { kind: "resolved", ...alices },
      { kind: "created", ...bobs },
      { kind: "denied", ...bobs },
      { kind: "created", ...alices },
      { kind: "denied", ...alices },
    ]);
    const [, , aliceCreated, aliceResolved, , , aliceCreatedAgain, aliceDenied] = everything;

    // The feed is ordered: once alice's last event is here, every earlier one (bob's too) has passed by.
    await waitUntil("alice's four events", () => (aliceFeed.events.length >= 4 ? true : undefined));
    await waitUntil("bob's four events", () => (bobFeed.events.length >= 4 ? true : undefined));
    expect(aliceFeed.events).toEqual([aliceCreated, aliceResolved, aliceCreatedAgain, aliceDenied]);
    expect(kindsOf(bobFeed.events)).toEqual([
      { kind: "created", ...bobs },
      { kind: "resolved", ...bobs },
      { kind: "created", ...bobs },
      { kind: "denied", ...bobs },
    ]);
    expect(aliceFeed.events[0]?.interaction).toMatchObject({
      status: "pending",
      request: { type: "approval", payload: { operation: "tool", validated_input: { path: "alice.txt" } } },
    });
    expect(aliceFeed.events[1]?.interaction).toMatchObject({
      status: "resolved",
      responded_by: alice.user_id,
    });

    // Resuming after alice's first event replays exactly her three later ones, none of bob's.
    const resumed = record(alice.client(), aliceCreated?.event_id);
    await resumed.started();
    expect(referencesOf(resumed.events)).toEqual(
      referencesOf([aliceResolved, aliceCreatedAgain, aliceDenied]),
    );
    // A replayed entry carries its Interaction as stored now (the feed references it: decision 0009).
    expect(resumed.events[1]?.interaction).toEqual(aliceDenied?.interaction);
    // From the start of the log ("0"), bob's replay holds his four and nothing of alice's.
    const bobReplay = record(bob.client(), 0);
    await bobReplay.started();
    expect(referencesOf(bobReplay.events)).toEqual(referencesOf(bobFeed.events));

    for (const feed of [aliceFeed, bobFeed, adminFeed, resumed, bobReplay]) {
      feed.stop();
      expect(feed.errors).toEqual([]);
    }
  });
});
