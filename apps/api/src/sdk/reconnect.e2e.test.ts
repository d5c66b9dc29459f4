import type { SessionMutation } from "@parley/sdk";
import { withReferences } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CuttableProxy,
  type E2eEnvironment,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startCuttableProxy,
  startE2eEnvironment,
} from "../testing/index.js";

describe("a subscriber whose socket is cut mid-Turn", () => {
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

  it("reconnects by itself and receives exactly the mutations it missed", async () => {
    const member = await environment.createMember("carol");
    const direct = member.client();
    const throughProxy = environment.clientFor(member, proxy.url);

    const session = await direct.sessions.create({ title: "reconnect" });
    const reference = new MutationRecorder(session, { after_event_id: 0 });
    const interrupted = new MutationRecorder(throughProxy.session(session.id), { after_event_id: 0 });

    const { turn_id } = await session.prompt("write cut.txt: written while a subscriber was away");
    const waiting = await interrupted.waitFor(isToolState("waiting-user"));
    const interaction_id = latestInteractionIdOf(waiting);
    const connectionsBeforeCut = proxy.connectionCount();
    const seenBeforeCut = interrupted.mutations.length;

    proxy.cut();
    await session.respond({
      interaction_id: interaction_id ?? "",
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    const finish = await reference.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ turn_id, status: "completed" });
    expect(interrupted.mutations.some(isTurnFinish)).toBe(false);

    proxy.restore();
    await interrupted.waitFor(isTurnFinish);

    expect(proxy.connectionCount()).toBeGreaterThan(connectionsBeforeCut);
    const upToFinish = (mutations: SessionMutation[]) =>
      mutations.filter((m) => m.event_id <= finish.event_id);
    expect(upToFinish(interrupted.mutations).map(withReferences)).toEqual(
      upToFinish(reference.mutations).map(withReferences),
    );
    expect(interrupted.eventIds().slice(0, finish.event_id)).toEqual(
      Array.from({ length: finish.event_id }, (_, index) => index + 1),
    );
    expect(interrupted.mutations.length - seenBeforeCut).toBeGreaterThan(0);
    expect(interrupted.errors).toEqual([]);

    reference.stop();
    interrupted.stop();
  });
});
