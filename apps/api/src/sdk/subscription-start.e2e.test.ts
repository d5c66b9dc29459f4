import type { ParleySession, SessionMutation } from "@parley/sdk";
import { withReferences } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CuttableProxy,
  type E2eEnvironment,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  startCuttableProxy,
  startE2eEnvironment,
} from "../testing/index.js";

/**
 * Records what one subscription delivers and, at each `onStarted`, its cursor and the event ids
 * delivered before it.
 */
class StartRecorder {
  readonly mutations: SessionMutation[] = [];
  readonly starts: { last_event_id: number | null; delivered: number[] }[] = [];
  readonly errors: unknown[] = [];
  private readonly waiters: { ready: () => boolean; resolve: () => void }[] = [];
  readonly stop: () => void;

  constructor(session: ParleySession, options: { after_event_id?: number }) {
    this.stop = session.subscribe(
      (mutation) => {
        this.mutations.push(mutation);
        this.wake();
      },
      {
        ...options,
        onStarted: ({ last_event_id }) => {
          this.starts.push({ last_event_id, delivered: this.eventIds() });
          this.wake();
        },
        onError: (error) => this.errors.push(error),
      },
    );
  }

  eventIds(): number[] {
    return this.mutations.map((mutation) => mutation.event_id);
  }

  /** Resolves once `onStarted` was called `count` times. */
  started(count: number): Promise<void> {
    return this.until(() => this.starts.length >= count);
  }

  /** Resolves with the first delivered mutation that matches, once there is one. */
  async waitFor(match: (mutation: SessionMutation) => boolean): Promise<SessionMutation> {
    await this.until(() => this.mutations.some(match));
    return this.mutations.find(match) as SessionMutation;
  }

  private until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ ready, resolve }));
  }

  private wake(): void {
    for (const waiter of this.waiters.filter((w) => w.ready())) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

function range(from: number, through: number): number[] {
  return Array.from({ length: Math.max(0, through - from + 1) }, (_, index) => from + index);
}

describe("subscribe's onStarted: the server listens, and says from which event", () => {
  let environment: E2eEnvironment;
  let proxy: CuttableProxy;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    proxy = await startCuttableProxy(environment.api.url);
  });

  afterAll(async () => {
    await proxy?.close();
    await environment?.close();
  });

  it("after a replay from 0 it reports the replay's last event_id, with exactly events 1…last delivered", async () => {
    const member = await environment.createMember("dora");
    const session = await member.client().sessions.create({ title: "started after replay" });
    const history = new StartRecorder(session, { after_event_id: 0 });
    await session.run("write history.txt: before anyone watched", {
      onInteraction: () => ({ type: "approval", outcome: "resolved", payload: { decision: "approved" } }),
    });
    const finish = await history.waitFor(isTurnFinish);

    const late = new StartRecorder(session, { after_event_id: 0 });
    await late.started(1);
    const [start] = late.starts;
    expect(start?.last_event_id).toBeGreaterThanOrEqual(finish.event_id);
    expect(start?.delivered).toEqual(range(1, start?.last_event_id ?? 0));
    expect(late.mutations.map(withReferences)).toEqual(
      history.mutations.slice(0, late.mutations.length).map(withReferences),
    );

    history.stop();
    late.stop();
  });

  it("from now: snapshot at the first start, then exactly the later events, none twice, none missing across a reconnect", async () => {
    const member = await environment.createMember("erin");
    const direct = member.client();
    const session = await direct.sessions.create({ title: "started from now" });
    const reference = new StartRecorder(session, { after_event_id: 0 });
    await session.run("write before.txt: history the view loads as its snapshot", {
      onInteraction: () => ({ type: "approval", outcome: "resolved", payload: { decision: "approved" } }),
    });

    const viewer = new StartRecorder(environment.clientFor(member, proxy.url).session(session.id), {});
    await viewer.started(1);
    expect(viewer.starts[0]).toEqual({ last_event_id: null, delivered: [] });
    // The session is idle: a replay from 0 started now ends at the head the viewer started from.
    const probe = new StartRecorder(session, { after_event_id: 0 });
    await probe.started(1);
    probe.stop();
    const head = probe.starts[0]?.last_event_id ?? 0;

    const { turn_id } = await session.prompt("write cut.txt: written while the viewer was away");
    const waiting = await viewer.waitFor(isToolState("waiting-user"));
    const connectionsBeforeCut = proxy.connectionCount();
    proxy.cut();
    await session.respond({
      interaction_id: latestInteractionIdOf(waiting),
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const finish = await reference.waitFor(
      (mutation) => isTurnFinish(mutation) && mutation.variant === "turn" && mutation.turn_id === turn_id,
    );
    proxy.restore();
    await viewer.waitFor(
      (mutation) => isTurnFinish(mutation) && mutation.variant === "turn" && mutation.turn_id === turn_id,
    );
    await viewer.started(2);

    expect(proxy.connectionCount()).toBeGreaterThan(connectionsBeforeCut);
    const first = head + 1;
    const seen = viewer.eventIds().filter((id) => id <= finish.event_id);
    expect(seen).toEqual(range(first, finish.event_id));
    expect(viewer.mutations.filter((m) => m.event_id <= finish.event_id).map(withReferences)).toEqual(
      reference.mutations
        .filter((m) => m.event_id >= first && m.event_id <= finish.event_id)
        .map(withReferences),
    );
    // The restart resumed from the last event the viewer had: a cursor, not null.
    const restart = viewer.starts[1];
    expect(restart?.last_event_id).toBeGreaterThanOrEqual(waiting.event_id);
    expect(restart?.delivered).toEqual(range(first, restart?.last_event_id ?? 0));
    expect(viewer.errors).toEqual([]);

    reference.stop();
    viewer.stop();
  });
});
