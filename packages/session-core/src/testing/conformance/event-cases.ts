import { describe, expect, it } from "vitest";
import type { InteractionEvent } from "../../ports/session-store.js";
import {
  buildInteraction,
  buildUserMessage,
  messageCommitOf,
  messageMutationOf,
  sequenced,
  T0,
  turnStartMutation,
} from "../fixtures.js";
import { assistantWithTools, type ConformanceContext, commitMessage, createSession } from "./context.js";

const SESSION = "session:a";

function userMessage(session_id: string, sequence: number) {
  return buildUserMessage({ session_id, message_id: `message:${session_id}:${sequence}`, sequence });
}

/** A commit creating one pending interaction (in a new message) with its admin feed entry. */
function interactionCommit(session_id: string, sequence: number) {
  const interaction = buildInteraction({
    interaction_id: `interaction:${session_id}:${sequence}`,
    tool_call_id: `call_${sequence}`,
    created_at: T0 + sequence,
  });
  const message = assistantWithTools({
    session_id,
    message_id: `message:${session_id}:${sequence}`,
    sequence,
    tools: [{ tool_call_id: `call_${sequence}`, interactions: [interaction] }],
  });
  return messageCommitOf(message, { interaction_events: [{ kind: "created", session_id, interaction }] });
}

export function describeEventConformance(context: ConformanceContext): void {
  describe("replay log (session events)", () => {
    it("numbers events 1, 2, 3 … and spends no id on a commit without a mutation", async () => {
      await createSession(context, SESSION);
      const first = await commitMessage(context, userMessage(SESSION, 1));
      const silent = userMessage(SESSION, 2);
      const without = await context.store.commit({
        session_id: SESSION,
        message: { snapshot: silent, expected_revision: 0 },
      });
      const third = await commitMessage(context, userMessage(SESSION, 3));
      expect(first.event?.event_id).toBe(1);
      expect(without.event).toBeUndefined();
      expect(third.event?.event_id).toBe(2);
      expect(await context.store.getMessage(SESSION, silent.message_id)).toStrictEqual(silent);
      const events = await context.store.listEvents(SESSION, 0, 10);
      expect(events.map((event) => event.event_id)).toEqual([1, 2]);
      expect(events[1]).toStrictEqual(third.event);
    });

    it("spends no event id on a rejected commit: the next accepted commit takes the next id", async () => {
      await createSession(context, SESSION);
      await commitMessage(context, userMessage(SESSION, 1));
      const taken = userMessage(SESSION, 1);
      await context.store.commit(messageCommitOf({ ...taken, message_id: "message:other" })).then(
        () => expect.unreachable("a taken sequence must be rejected"),
        () => undefined,
      );
      const next = await commitMessage(context, userMessage(SESSION, 2));
      expect(next.event?.event_id).toBe(2);
      expect((await context.store.listEvents(SESSION, 0, 10)).map((event) => event.event_id)).toEqual([1, 2]);
    });

    it("stores the mutation with its assigned event_id", async () => {
      await createSession(context, SESSION);
      const message = userMessage(SESSION, 1);
      const result = await commitMessage(context, message);
      const expected = sequenced(messageMutationOf(message), 1);
      expect(result.event).toStrictEqual({ session_id: SESSION, event_id: 1, mutation: expected });
      expect(await context.store.listEvents(SESSION, 0, 10)).toStrictEqual([result.event]);
    });

    it("logs a preceding mutation just before the mutation in the same commit, with consecutive ids", async () => {
      await createSession(context, SESSION);
      await commitMessage(context, userMessage(SESSION, 1));
      const start = turnStartMutation(SESSION, "turn:t1");
      const message = userMessage(SESSION, 2);
      const result = await context.store.commit(messageCommitOf(message, { preceding_mutation: start }));
      expect(result.preceding_event).toStrictEqual({
        session_id: SESSION,
        event_id: 2,
        mutation: sequenced(start, 2),
      });
      expect(result.event).toStrictEqual({
        session_id: SESSION,
        event_id: 3,
        mutation: sequenced(messageMutationOf(message), 3),
      });
      const next = await commitMessage(context, userMessage(SESSION, 3));
      expect(next.event?.event_id).toBe(4);
      const events = await context.store.listEvents(SESSION, 1, 10);
      expect(events.slice(0, 2)).toStrictEqual([result.preceding_event, result.event]);
    });

    it("reads a two-mutation commit's entries one by one: from between them, up to a limit, each with its own time", async () => {
      await createSession(context, SESSION);
      const start = { ...turnStartMutation(SESSION, "turn:t1"), created_at: T0 - 5 };
      const paired = await context.store.commit(
        messageCommitOf(userMessage(SESSION, 1), { preceding_mutation: start }),
      );
      await commitMessage(context, userMessage(SESSION, 2));
      const [first, second] = [paired.preceding_event, paired.event];
      expect(first?.mutation.created_at).toBe(T0 - 5);
      expect(await context.store.listEvents(SESSION, 0, 1)).toStrictEqual([first]);
      const fromBetween = await context.store.listEvents(SESSION, 1, 10);
      expect(fromBetween.map((event) => event.event_id)).toEqual([2, 3]);
      expect(fromBetween[0]).toStrictEqual(second);
      expect(await context.store.listEvents(SESSION, 0, 2)).toStrictEqual([first, second]);
      expect(await context.store.listEvents(SESSION, 3, 10)).toEqual([]);
    });

    it("a rejected commit logs neither of its two mutations and spends no id", async () => {
      await createSession(context, SESSION);
      await commitMessage(context, userMessage(SESSION, 1));
      const taken = { ...userMessage(SESSION, 1), message_id: "message:other" };
      await context.store
        .commit(messageCommitOf(taken, { preceding_mutation: turnStartMutation(SESSION, "turn:t1") }))
        .then(
          () => expect.unreachable("a taken sequence must be rejected"),
          () => undefined,
        );
      const next = await commitMessage(context, userMessage(SESSION, 2));
      expect(next.event?.event_id).toBe(2);
      expect((await context.store.listEvents(SESSION, 0, 10)).map((event) => event.event_id)).toEqual([1, 2]);
    });

    it("refuses a preceding mutation without a mutation", async () => {
      await createSession(context, SESSION);
      await expect(
        context.store.commit({
          session_id: SESSION,
          preceding_mutation: turnStartMutation(SESSION, "turn:t1"),
        }),
      ).rejects.toThrow();
      expect(await context.store.listEvents(SESSION, 0, 10)).toEqual([]);
    });

    it("numbers each session's events independently", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      await commitMessage(context, userMessage("session:a", 1));
      await commitMessage(context, userMessage("session:b", 1));
      await commitMessage(context, userMessage("session:a", 2));
      const ids = async (session_id: string) =>
        (await context.store.listEvents(session_id, 0, 10)).map((event) => event.event_id);
      expect(await ids("session:a")).toEqual([1, 2]);
      expect(await ids("session:b")).toEqual([1]);
    });

    it("gives 20 concurrent commits to one session the ids 1..20, each exactly once", async () => {
      await createSession(context, SESSION);
      const messages = Array.from({ length: 20 }, (_, index) => userMessage(SESSION, index + 1));
      const results = await Promise.all(messages.map((message) => commitMessage(context, message)));
      const assigned = results.map((result) => result.event?.event_id ?? 0);
      expect([...assigned].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      const events = await context.store.listEvents(SESSION, 0, 100);
      expect(events.map((event) => event.event_id)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      for (const [index, message] of messages.entries()) {
        const event_id = results[index]?.event?.event_id ?? 0;
        const logged = events.find((event) => event.event_id === event_id);
        expect(logged?.mutation).toStrictEqual(sequenced(messageMutationOf(message), event_id));
      }
    });

    it("lists events after an id, ascending, at most limit", async () => {
      await createSession(context, SESSION);
      for (let sequence = 1; sequence <= 5; sequence += 1)
        await commitMessage(context, userMessage(SESSION, sequence));
      const ids = async (after: number, limit: number) =>
        (await context.store.listEvents(SESSION, after, limit)).map((event) => event.event_id);
      expect(await ids(0, 2)).toEqual([1, 2]);
      expect(await ids(2, 2)).toEqual([3, 4]);
      expect(await ids(4, 2)).toEqual([5]);
      expect(await ids(5, 2)).toEqual([]);
      expect(await context.store.listEvents("session:missing", 0, 5)).toEqual([]);
    });
  });

  describe("admin feed (interaction events)", () => {
    it("numbers interaction events from one global sequence across sessions, in commit order", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      const first = await context.store.commit(interactionCommit("session:a", 1));
      const second = await context.store.commit(interactionCommit("session:b", 1));
      const third = await context.store.commit(interactionCommit("session:a", 2));
      const ids = [first, second, third].map((result) =>
        result.interaction_events.map((event) => event.event_id),
      );
      expect(ids.map((list) => list.length)).toEqual([1, 1, 1]);
      const flat = ids.flat();
      expect(flat[0]).toBeLessThan(flat[1] ?? 0);
      expect(flat[1]).toBeLessThan(flat[2] ?? 0);
      const feed = await context.store.listInteractionEvents(0, 10);
      expect(feed).toStrictEqual([
        ...first.interaction_events,
        ...second.interaction_events,
        ...third.interaction_events,
      ]);
      expect(feed.map((event) => [event.session_id, event.kind, event.interaction.interaction_id])).toEqual([
        ["session:a", "created", "interaction:session:a:1"],
        ["session:b", "created", "interaction:session:b:1"],
        ["session:a", "created", "interaction:session:a:2"],
      ]);
    });

    it("assigns ids to several events of one commit in the order given", async () => {
      await createSession(context, SESSION);
      const commit = interactionCommit(SESSION, 1);
      const interaction = commit.interaction_events?.[0]?.interaction;
      if (!interaction) throw new Error("fixture has an interaction event");
      const resolved = { ...interaction, status: "resolved" as const, resolved_at: T0 + 10 };
      const events: Omit<InteractionEvent, "event_id">[] = [
        { kind: "created", session_id: SESSION, interaction },
        { kind: "resolved", session_id: SESSION, interaction: resolved },
      ];
      const result = await context.store.commit({ ...commit, interaction_events: events });
      expect(result.interaction_events.map((event) => event.kind)).toEqual(["created", "resolved"]);
      const [created_id, resolved_id] = result.interaction_events.map((event) => event.event_id);
      expect(resolved_id).toBeGreaterThan(created_id ?? Number.POSITIVE_INFINITY);
      expect(result.interaction_events[1]).toStrictEqual({ ...events[1], event_id: resolved_id });
    });

    it("gives concurrent commits across sessions distinct interaction event ids", async () => {
      const sessions = ["session:a", "session:b", "session:c", "session:d"];
      for (const session_id of sessions) await createSession(context, session_id);
      const commits = sessions.flatMap((session_id) =>
        [1, 2, 3].map((sequence) => interactionCommit(session_id, sequence)),
      );
      const results = await Promise.all(commits.map((commit) => context.store.commit(commit)));
      const ids = results.flatMap((result) => result.interaction_events.map((event) => event.event_id));
      expect(new Set(ids).size).toBe(12);
      const feed = await context.store.listInteractionEvents(0, 100);
      expect(feed.map((event) => event.event_id)).toEqual([...ids].sort((a, b) => a - b));
    });

    it("never lets a reader polling the feed skip an id while commits across sessions land concurrently", async () => {
      const sessions = ["session:a", "session:b", "session:c", "session:d", "session:e"];
      for (const session_id of sessions) await createSession(context, session_id);
      const commits = sessions.flatMap((session_id) =>
        [1, 2, 3, 4].map((sequence) => interactionCommit(session_id, sequence)),
      );
      const seen: number[] = [];
      let writing = true;
      const poller = (async () => {
        // Reads like a subscriber does: after the last id it has, until the writers are done and
        // one more read finds nothing new.
        while (true) {
          const done = !writing;
          const page = await context.store.listInteractionEvents(seen.at(-1) ?? 0, 3);
          seen.push(...page.map((event) => event.event_id));
          if (done && page.length === 0) return;
        }
      })();
      const results = await Promise.all(commits.map((commit) => context.store.commit(commit)));
      writing = false;
      await poller;
      const ids = results.flatMap((result) => result.interaction_events.map((event) => event.event_id));
      expect(seen).toEqual([...ids].sort((a, b) => a - b));
    });

    it("lists interaction events after an id, ascending, at most limit", async () => {
      await createSession(context, SESSION);
      for (let sequence = 1; sequence <= 3; sequence += 1)
        await context.store.commit(interactionCommit(SESSION, sequence));
      const all = (await context.store.listInteractionEvents(0, 10)).map((event) => event.event_id);
      expect(all).toHaveLength(3);
      const [first, second, third] = all as [number, number, number];
      const ids = async (after: number, limit: number) =>
        (await context.store.listInteractionEvents(after, limit)).map((event) => event.event_id);
      expect(await ids(0, 2)).toEqual([first, second]);
      expect(await ids(first, 1)).toEqual([second]);
      expect(await ids(second, 5)).toEqual([third]);
      expect(await ids(third, 5)).toEqual([]);
    });
  });
}
