import { startTestBus, TEST_BUS_KINDS, type TestBus } from "@parley/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiProcess,
  type E2eEnvironment,
  type E2eUser,
  SseFeed,
  type SseItem,
  startApiProcess,
  startE2eEnvironment,
} from "./testing/index.js";

type Mutation = Record<string, unknown> & { event_id: number; variant: string; type: string };

const isFinish = (item: SseItem) => {
  const data = item.data as Mutation | undefined;
  return data?.variant === "turn" && data.type === "finish";
};

/**
 * Live mutations (DESIGN §10.6, ADR 0007) reach a subscriber on another instance: the Turn runs on
 * instance A (the prompt's), the subscriber reads raw SSE from instance B. Needs the runtime that
 * publishes the model stream live (issue 22's runtime half).
 */
describe.each(TEST_BUS_KINDS)("live mutations across two API instances (bus: %s)", (busKind) => {
  let bus: TestBus;
  let environment: E2eEnvironment;
  let second: ApiProcess;
  let alice: E2eUser;
  const feeds: SseFeed[] = [];

  beforeAll(async () => {
    bus = await startTestBus(busKind);
    environment = await startE2eEnvironment({ env: bus.env });
    second = await startApiProcess({ database_url: environment.database.url, env: bus.env });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await Promise.all(feeds.map((feed) => feed.close()));
    await second?.stop();
    await environment?.close();
    await bus?.stop();
  });

  /**
   * A raw SSE feed, returned once its replay is over (`announce_start`): a live mutation is passed on
   * only right after the durable event it follows, so a replay still reading when the Turn runs
   * would read past it and the feed would rightly drop it (seen in CI under load).
   */
  async function openFeed(url: string, session_id: string, last_event_id: string) {
    const feed = await SseFeed.open({
      url,
      token: alice.token,
      input: { session_id, announce_start: true },
      last_event_id,
    });
    feeds.push(feed);
    await feed.waitFor((item) => (item.data as { started?: unknown } | undefined)?.started === true);
    return feed;
  }

  it("a subscriber on B sees the live mutations of A's Turn, each tracked with the id of the durable event it follows, between the durable events around it", async () => {
    const session = await environment
      .clientFor(alice, environment.api.url)
      .sessions.create({ title: "live" });
    const onA = await openFeed(environment.api.url, session.id, "0");
    const onB = await openFeed(second.url, session.id, "0");
    await session.prompt("hello");
    await onB.waitFor(isFinish);
    await onA.waitFor(isFinish);

    const itemsOnB = onB.tracked;
    const live = itemsOnB.filter((item) => item.data.live === true);
    const deltas = live.filter((item) => item.data.variant === "delta");
    expect(deltas.length).toBeGreaterThan(1);
    // Durable ids: gap-free from 1; every live one carries (and is tracked with) the id of the
    // durable mutation just before it.
    let lastDurable = 0;
    for (const item of itemsOnB) {
      const mutation = item.data as Mutation;
      expect(item.id).toBe(String(mutation.event_id));
      if (mutation.live === true) expect(mutation.event_id).toBe(lastDurable);
      else {
        expect(mutation.event_id).toBe(lastDurable + 1);
        lastDurable = mutation.event_id;
      }
    }
    // B saw what A's own subscriber saw, live mutations included, in the same places.
    expect(itemsOnB).toEqual(onA.tracked);
    // The deltas spell the text the checkpoints committed.
    const assistant = (await session.messages()).items.find((message) => message.type === "assistant");
    const parts = assistant?.type === "assistant" ? assistant.parts : [];
    const text = parts.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text.length).toBeGreaterThan(0);
    expect(deltas.map((item) => item.data.delta).join("")).toBe(text);
  });

  it("a client that reconnects from a live mutation's id gets the durable events after it, never that live mutation again", async () => {
    const session = await environment
      .clientFor(alice, environment.api.url)
      .sessions.create({ title: "resume" });
    const onB = await openFeed(second.url, session.id, "0");
    await session.prompt("hello");
    await onB.waitFor(isFinish);
    const first = onB.tracked.find((item) => item.data.live === true);
    if (first === undefined) throw new Error("no live mutation reached instance B");
    const resumed = await openFeed(second.url, session.id, first.id);
    await resumed.waitFor(isFinish);
    const durableAfter = onB.tracked.filter(
      (item) => item.data.live !== true && Number(item.id) > Number(first.id),
    );
    expect(resumed.tracked).toEqual(durableAfter);
  });
});
