import { startTestBus, TEST_BUS_KINDS, type TestBus } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiProcess,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startApiProcess,
  startE2eEnvironment,
} from "./testing/index.js";

// Once per bus `PARLEY_BUS` can select: NOTIFY (the default) and NATS (a private nats-server).
describe.each(TEST_BUS_KINDS)("two API instances on one Postgres (bus: %s)", (busKind) => {
  let bus: TestBus;
  let environment: E2eEnvironment;
  let second: ApiProcess;
  let alice: E2eUser;
  const clients: ParleyClient[] = [];

  beforeAll(async () => {
    bus = await startTestBus(busKind);
    environment = await startE2eEnvironment({ env: bus.env });
    second = await startApiProcess({ database_url: environment.database.url, env: bus.env });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await second?.stop();
    await environment?.close();
    await bus?.stop();
  });

  it("a respond taken by the other instance resumes the owner's Turn; subscribers on both see the same mutations", async () => {
    const onFirst = environment.clientFor(alice, environment.api.url);
    const onSecond = createParleyClient({ url: second.url, token: alice.token });
    clients.push(onSecond);

    const session = await onFirst.sessions.create({ title: "two instances" });
    const firstFeed = new MutationRecorder(session, { after_event_id: 0 });
    const secondFeed = new MutationRecorder(onSecond.session(session.id), { after_event_id: 0 });

    const { turn_id } = await session.prompt("write shared.txt: answered elsewhere");
    const waiting = await secondFeed.waitFor(isToolState("waiting-user"));
    const interaction_id = latestInteractionIdOf(waiting);
    expect(await onSecond.session(session.id).interactions()).toHaveLength(1);

    const result = await onSecond.session(session.id).respond({
      interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(result.status).toBe("resolved");

    const finish = await firstFeed.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ turn_id, status: "completed" });
    expect(await secondFeed.waitFor(isTurnFinish)).toEqual(finish);
    const upToFinish = (feed: MutationRecorder) =>
      feed.mutations.filter((m) => m.event_id <= finish.event_id);
    expect(upToFinish(secondFeed)).toEqual(upToFinish(firstFeed));
    expect(firstFeed.eventIds().slice(0, finish.event_id)).toEqual(
      Array.from({ length: finish.event_id }, (_, index) => index + 1),
    );
    firstFeed.stop();
    secondFeed.stop();
  });
});
