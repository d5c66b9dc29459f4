import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EventBus } from "../ports/event-bus.js";
import type { InteractionEvent, SessionEvent, SessionStore } from "../ports/session-store.js";
import type { SessionMutation } from "../schema/mutation.js";
import {
  buildInteraction,
  buildSessionRecord,
  buildUserMessage,
  messageCommitOf,
  turnStartMutation,
} from "./fixtures.js";

/** The notice a fault hook sees (the adapters' notices have this shape and more). */
export interface ConformanceNotice {
  kind: "session" | "interaction" | "live";
  session_id?: string;
}

/** One bus as a separate process would have it: its own connections to the database and broker. */
export interface ConformanceBus extends EventBus {
  /** Cuts the bus's connection as a network failure would (e.g. `pg_terminate_backend`). */
  simulateConnectionLoss(): Promise<void>;
  close(): Promise<void>;
  /** The largest notice its transport carries (a larger live mutation stays in the process). */
  readonly maxNoticeBytes: number;
  /** Live mutations it delivered to its own listeners only, being too large for the transport. */
  readonly liveMutationsNotCarried: number;
}

export interface EventBusConformanceSubject {
  /** The store whose commits the buses announce (the buses read the rows from its database). */
  store: SessionStore;
  /**
   * Starts a bus. `dropNotice` is the adapters' generic fault hook: true loses the notice, on
   * `"send"` before it leaves the process, on `"receive"` as it arrives.
   */
  startBus(options?: {
    dropNotice?(notice: ConformanceNotice, direction: "send" | "receive"): boolean;
  }): Promise<ConformanceBus>;
  /**
   * Stops the broker (NATS server), runs `whileDown`, starts it again on the same address. Absent
   * when the broker is the database itself (NOTIFY), whose restarts the API fault tests cover.
   */
  restartBroker?(whileDown: () => Promise<void>): Promise<void>;
  cleanup(): Promise<void>;
}

/** Resolves when `condition` holds (other processes' deliveries have no local signal to await). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A live text delta of `session_id` following durable event `event_id` (DESIGN §10.6). */
function liveDelta(session_id: string, event_id: number, delta: string): SessionMutation {
  return {
    event_id,
    mutation_id: `live:${event_id}:${delta.slice(0, 16)}`,
    session_id,
    created_at: 1,
    live: true,
    variant: "delta",
    type: "text",
    message_id: "message:live",
    revision: 0,
    part_id: "part:live",
    delta,
  };
}

const ids = (events: SessionEvent[]) => events.map((event) => `${event.session_id}#${event.event_id}`);

/**
 * The contract of the `EventBus` port across processes, as executable tests: every adapter that
 * connects processes (Postgres NOTIFY, NATS in `@parley/db`) runs it. Each bus started by a test is
 * a process of its own; the tests commit through the store and publish after commit, as the runtime
 * does. "Once each" is checked after a sentinel event sent later through the other bus has arrived:
 * a duplicate would have come on the same ordered channel before it.
 */
export function runEventBusConformance(
  name: string,
  setup: () => Promise<EventBusConformanceSubject>,
  /** `restartsBroker`: the subject has `restartBroker` (the broker is a server of its own). */
  capabilities: { restartsBroker: boolean },
): void {
  describe(`EventBus conformance: ${name}`, () => {
    let subject: EventBusConformanceSubject;
    const buses: ConformanceBus[] = [];
    let test = 0;

    beforeAll(async () => {
      subject = await setup();
    });
    afterEach(async () => {
      for (const bus of buses.splice(0)) await bus.close();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    async function startBus(options?: Parameters<EventBusConformanceSubject["startBus"]>[0]) {
      const bus = await subject.startBus(options);
      buses.push(bus);
      return bus;
    }

    /** A session id unique to this run of the suite (the subject's database is shared by its tests). */
    function sessionId(label: string): string {
      test += 1;
      return `session:${label}:${test}:${Math.random().toString(36).slice(2, 8)}`;
    }

    function record(bus: EventBus, filter?: { session_id: string }) {
      const session: SessionEvent[] = [];
      const interaction: InteractionEvent[] = [];
      const live: SessionMutation[] = [];
      /** Durable events (`#<id>`) and live mutations (`live@<id>:<delta>`) in arrival order. */
      const order: string[] = [];
      let resyncs = 0;
      bus.subscribe({
        ...filter,
        onSessionEvent: (event) => {
          session.push(event);
          order.push(`${event.session_id}#${event.event_id}`);
        },
        onLiveMutation: (mutation) => {
          live.push(mutation);
          const text = mutation.variant === "delta" ? mutation.delta.slice(0, 16) : mutation.variant;
          order.push(`${mutation.session_id}@${mutation.event_id}:${text}`);
        },
        onInteractionEvent: (event) => interaction.push(event),
        onResync: () => {
          resyncs += 1;
        },
      });
      return {
        session,
        interaction,
        live,
        /** `order` of one session, without its id (`#1`, `@1:hello`). */
        orderOf: (session_id: string) =>
          order
            .filter((entry) => entry.startsWith(session_id))
            .map((entry) => entry.slice(session_id.length)),
        of: (session_id: string) => session.filter((event) => event.session_id === session_id),
        get resyncs() {
          return resyncs;
        },
      };
    }

    /** Commits `count` user messages to `session_id` (created at `from` 1); returns their events. */
    async function commitMessages(session_id: string, count: number, from = 1): Promise<SessionEvent[]> {
      if (from === 1) await subject.store.createSession(buildSessionRecord({ session_id }));
      const events: SessionEvent[] = [];
      for (let sequence = from; sequence < from + count; sequence += 1) {
        const result = await subject.store.commit(
          messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
        );
        if (result.event) events.push(result.event);
      }
      return events;
    }

    /** Publishes a new event of `session_id` from `bus` and waits until `seen` has it. */
    async function sentinel(
      bus: EventBus,
      session_id: string,
      from: number,
      seen: { of(session_id: string): SessionEvent[] },
    ): Promise<void> {
      const events = await commitMessages(session_id, 1, from);
      await bus.publish({ session_events: events, interaction_events: [] });
      await until(() => seen.of(session_id).length >= from);
    }

    it("two processes: a publish reaches local listeners before it resolves and the other process's listeners, once each", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByA = record(a);
      const seenByB = record(b);
      const session_id = sessionId("two");
      const events = await commitMessages(session_id, 3);
      await a.publish({ session_events: events, interaction_events: [] });
      expect(ids(seenByA.of(session_id))).toEqual(ids(events));
      await until(() => seenByB.of(session_id).length >= 3);
      expect(seenByB.of(session_id)).toStrictEqual(events);

      const more = await commitMessages(session_id, 1, 4);
      await b.publish({ session_events: more, interaction_events: [] });
      await until(() => seenByA.of(session_id).length >= 4);
      await sentinel(b, session_id, 5, seenByA);
      await until(() => seenByB.of(session_id).length >= 5);
      const all = await subject.store.listEvents(session_id, 0, 100);
      expect(seenByA.of(session_id)).toStrictEqual(all);
      expect(seenByB.of(session_id)).toStrictEqual(all);
    });

    it("orders each session's events and fills skipped ids from the log, across interleaved sessions", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const first = sessionId("order-x");
      const second = sessionId("order-y");
      const x = await commitMessages(first, 5);
      const y = await commitMessages(second, 4);
      // A bus starts a session at the first id it hears of. Then: out of order, interleaved, from
      // both processes and with ids never announced, as racing writers could publish.
      await a.publish({
        session_events: [x[0], y[0]].filter((event) => event !== undefined),
        interaction_events: [],
      });
      await until(() => seenByB.of(first).length >= 1 && seenByB.of(second).length >= 1);
      await a.publish({ session_events: x.slice(3), interaction_events: [] });
      await b.publish({ session_events: y.slice(3), interaction_events: [] });
      await a.publish({ session_events: x.slice(1, 3), interaction_events: [] });
      await until(() => seenByB.of(first).length >= 5 && seenByB.of(second).length >= 4);
      await sentinel(a, first, 6, seenByB);
      expect(seenByB.of(first).map((event) => event.event_id)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(seenByB.of(first).slice(0, 5)).toStrictEqual(x);
      expect(seenByB.of(second)).toStrictEqual(y);
    });

    it("routes a session's events only to that session's listeners", async () => {
      const a = await startBus();
      const b = await startBus();
      const mine = sessionId("route-mine");
      const other = sessionId("route-other");
      const onlyMine = record(b, { session_id: mine });
      const everything = record(b);
      const otherEvents = await commitMessages(other, 2);
      const mineEvents = await commitMessages(mine, 1);
      await a.publish({ session_events: [...otherEvents, ...mineEvents], interaction_events: [] });
      await until(() => onlyMine.session.length >= 1 && everything.of(other).length >= 2);
      await sentinel(a, mine, 2, onlyMine);
      expect(ids(onlyMine.session)).toEqual([`${mine}#1`, `${mine}#2`]);
      expect(ids(everything.of(other))).toEqual([`${other}#1`, `${other}#2`]);
    });

    it("carries the admin feed across processes in id order", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("feed");
      await subject.store.createSession(buildSessionRecord({ session_id }));
      const interaction = buildInteraction({
        interaction_id: `interaction:${session_id}`,
        tool_call_id: `call_${test}`,
      });
      const result = await subject.store.commit({
        session_id,
        interaction_events: [
          { kind: "created", session_id, interaction },
          { kind: "cancelled", session_id, interaction: { ...interaction, status: "cancelled" } },
        ],
      });
      await a.publish({ session_events: [], interaction_events: result.interaction_events });
      await until(() => seenByB.interaction.length >= 2);
      expect(seenByB.interaction).toStrictEqual(result.interaction_events);
    });

    it("delivers nothing before commit: another process reads rows, never a notice's word", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("commit");
      const announced = await commitMessages(session_id, 1);
      const real = announced[0];
      if (!real) throw new Error("the commit produced no event");
      // A publisher that announces event 2 before committing it (a bug the port forbids).
      const early = { ...real, event_id: 2, mutation: { ...real.mutation, event_id: 2 } };
      await a.publish({ session_events: [real, early], interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 1);
      const committed = await commitMessages(session_id, 1, 2);
      await a.publish({ session_events: committed, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 2);
      await sentinel(a, session_id, 3, seenByB);
      expect(seenByB.of(session_id)).toStrictEqual(await subject.store.listEvents(session_id, 0, 100));
      expect(seenByB.of(session_id)[1]).not.toStrictEqual(early);
    });

    it("a deliberately dropped notice costs no event: the session's next notice fills the gap", async () => {
      const session_id = sessionId("dropped");
      let notices = 0;
      let dropped = 0;
      const a = await startBus({
        dropNotice: (notice, direction) => {
          if (direction !== "send" || notice.session_id !== session_id) return false;
          notices += 1;
          if (notices !== 2) return false;
          dropped += 1;
          return true;
        },
      });
      const b = await startBus();
      const seenByB = record(b);
      const heard = await commitMessages(session_id, 1);
      await a.publish({ session_events: heard, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 1);
      const lost = await commitMessages(session_id, 2, 2);
      await a.publish({ session_events: lost, interaction_events: [] });
      expect(dropped).toBe(1);
      const next = await commitMessages(session_id, 1, 4);
      await a.publish({ session_events: next, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 4);
      expect(seenByB.of(session_id)).toStrictEqual([...heard, ...lost, ...next]);
    });

    it("reads a commit's two mutations in another process, also when a notice ends between them", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("paired");
      const [before] = await commitMessages(session_id, 1);
      const paired = await subject.store.commit(
        messageCommitOf(buildUserMessage({ session_id, message_id: "message:2", sequence: 2 }), {
          preceding_mutation: turnStartMutation(session_id, "turn:paired"),
        }),
      );
      if (!before || !paired.preceding_event || !paired.event) throw new Error("the commits logged nothing");
      await a.publish({ session_events: [before, paired.preceding_event], interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 2);
      expect(seenByB.of(session_id)).toStrictEqual([before, paired.preceding_event]);
      await a.publish({ session_events: [paired.event], interaction_events: [] });
      await sentinel(a, session_id, 4, seenByB);
      expect(seenByB.of(session_id)).toStrictEqual(await subject.store.listEvents(session_id, 0, 100));
      expect(ids(seenByB.of(session_id))).toEqual([1, 2, 3, 4].map((id) => `${session_id}#${id}`));
    });

    it("after a dropped connection, reads what it missed and tells its listeners to resync", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("reconnect");
      const before = await commitMessages(session_id, 1);
      await a.publish({ session_events: before, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 1);
      // Committed but never announced: only the catch-up after the reconnection can deliver them.
      await commitMessages(session_id, 2, 2);
      await b.simulateConnectionLoss();
      await until(() => seenByB.of(session_id).length >= 3 && seenByB.resyncs >= 1);
      expect(seenByB.of(session_id)).toStrictEqual(await subject.store.listEvents(session_id, 0, 100));
      // And the connection works again.
      await sentinel(a, session_id, 4, seenByB);
      expect(ids(seenByB.of(session_id))).toEqual([1, 2, 3, 4].map((id) => `${session_id}#${id}`));
    });

    it("keeps delivering to the other listeners when one throws, and stops at unsubscribe", async () => {
      const a = await startBus();
      a.subscribe({
        onSessionEvent: () => {
          throw new Error("listener bug");
        },
      });
      const seen = record(a);
      const received: number[] = [];
      const unsubscribe = a.subscribe({ onSessionEvent: (event) => received.push(event.event_id) });
      const session_id = sessionId("throws");
      const events = await commitMessages(session_id, 2);
      await a.publish({ session_events: events.slice(0, 1), interaction_events: [] });
      unsubscribe();
      await a.publish({ session_events: events.slice(1), interaction_events: [] });
      expect(ids(seen.of(session_id))).toEqual(ids(events));
      expect(received).toEqual([1]);
    });

    it("a live mutation reaches another process's listeners once, right after the durable event it follows", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByA = record(a);
      const seenByB = record(b);
      const session_id = sessionId("live");
      const first = await commitMessages(session_id, 1);
      await a.publish({ session_events: first, interaction_events: [] });
      // Sent at once: B may still be reading event 1's row when this arrives.
      a.publishLive(liveDelta(session_id, 1, "hello"));
      expect(seenByA.orderOf(session_id)).toEqual(["#1", "@1:hello"]);
      await sentinel(a, session_id, 2, seenByB);
      expect(seenByB.orderOf(session_id)).toEqual(["#1", "@1:hello", "#2"]);
      expect(seenByB.live).toStrictEqual([liveDelta(session_id, 1, "hello")]);
      // A's own notices may come back to it (NOTIFY): B's next event, heard after them, proves
      // A delivered its live mutation once.
      await sentinel(b, session_id, 3, seenByA);
      expect(seenByA.orderOf(session_id)).toEqual(["#1", "@1:hello", "#2", "#3"]);
    });

    it("a live mutation whose durable event's notice was lost still follows that event: it is read first", async () => {
      const session_id = sessionId("live-lost");
      let losing = false;
      const a = await startBus({
        dropNotice: (notice, direction) =>
          losing && direction === "send" && notice.kind === "session" && notice.session_id === session_id,
      });
      const b = await startBus();
      const seenByB = record(b);
      const heard = await commitMessages(session_id, 1);
      await a.publish({ session_events: heard, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 1);
      losing = true;
      const lost = await commitMessages(session_id, 2, 2);
      await a.publish({ session_events: lost, interaction_events: [] });
      a.publishLive(liveDelta(session_id, 3, "after three"));
      await until(() => seenByB.live.length >= 1);
      expect(seenByB.orderOf(session_id)).toEqual(["#1", "#2", "#3", "@3:after three"]);
      expect(seenByB.of(session_id)).toStrictEqual([...heard, ...lost]);
    });

    it("drops a live mutation in another process when a later durable event already covers it", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("live-stale");
      const events = await commitMessages(session_id, 2);
      await a.publish({ session_events: events, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 2);
      // Follows event 1, but B is at event 2: its persisted form is already there.
      a.publishLive(liveDelta(session_id, 1, "stale"));
      a.publishLive(liveDelta(session_id, 2, "fresh"));
      await sentinel(a, session_id, 3, seenByB);
      expect(seenByB.orderOf(session_id)).toEqual(["#1", "#2", "@2:fresh", "#3"]);
    });

    it("a live mutation too large for the transport reaches this process's listeners only, counted", async () => {
      const a = await startBus();
      const b = await startBus();
      const seenByA = record(a);
      const seenByB = record(b);
      const session_id = sessionId("live-large");
      const first = await commitMessages(session_id, 1);
      await a.publish({ session_events: first, interaction_events: [] });
      const large = liveDelta(session_id, 1, `large:${"x".repeat(a.maxNoticeBytes)}`);
      a.publishLive(large);
      a.publishLive(liveDelta(session_id, 1, "small"));
      expect(a.liveMutationsNotCarried).toBe(1);
      expect(seenByA.live).toStrictEqual([large, liveDelta(session_id, 1, "small")]);
      await sentinel(a, session_id, 2, seenByB);
      expect(seenByB.orderOf(session_id)).toEqual(["#1", "@1:small", "#2"]);
      expect(b.liveMutationsNotCarried).toBe(0);
    });

    // NOTIFY's broker is the database itself; its restarts are covered by the API's fault tests.
    if (!capabilities.restartsBroker) return;
    it("survives a restart of its broker: reads what was committed meanwhile, then delivers again", async () => {
      const restartBroker = subject.restartBroker?.bind(subject);
      if (!restartBroker) throw new Error("The subject declared restartsBroker but has no restartBroker");
      const a = await startBus();
      const b = await startBus();
      const seenByB = record(b);
      const session_id = sessionId("restart");
      const before = await commitMessages(session_id, 1);
      await a.publish({ session_events: before, interaction_events: [] });
      await until(() => seenByB.of(session_id).length >= 1);
      await restartBroker(async () => {
        const during = await commitMessages(session_id, 2, 2);
        // Published into a dead broker: lost (or buffered by the client), never an error.
        await a.publish({ session_events: during, interaction_events: [] });
      });
      await until(() => seenByB.of(session_id).length >= 3 && seenByB.resyncs >= 1);
      // Delivering again: A's client may not have noticed yet that its old connection died, and a
      // notice written into it is lost (at most once, like NOTIFY). The contract is that the
      // session's next notice fills the gap, so A keeps committing until B has caught up.
      let next = 4;
      for (;;) {
        const events = await commitMessages(session_id, 1, next);
        await a.publish({ session_events: events, interaction_events: [] });
        const deadline = Date.now() + 1_000;
        await until(() => seenByB.of(session_id).length >= next || Date.now() > deadline);
        if (seenByB.of(session_id).length >= next) break;
        next += 1;
      }
      expect(seenByB.of(session_id)).toStrictEqual(await subject.store.listEvents(session_id, 0, 100));
    });
  });
}
