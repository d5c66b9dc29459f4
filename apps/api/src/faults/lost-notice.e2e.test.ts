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
} from "../testing/index.js";
import { describeSession, waitUntil } from "./fault-checks.js";

const APPROVE = { type: "approval", outcome: "resolved", payload: { decision: "approved" } } as const;

/** The bound DESIGN §10.1/§10.7 promise: a committed answer reaches its Turn within 2 s. */
const REACH_TURN_MS = 2_000;

/**
 * No lost wake-up across processes: instance A (the owner: it took the prompt and ran the Turn up to
 * its approval) loses every bus notice other processes send (`PARLEY_FAULT_DROP_NOTICES=received`,
 * a fault hook), so it never hears that instance B committed the answer. The Turn must finish all
 * the same — parked, B resumes it itself; not parked (the escape hatch), A's waiter reads the
 * committed answer on its next sweep.
 */
describe.each(["on", "off"] as const)("a lost bus notice (PARLEY_PARK_WAITING_TURNS=%s)", (parking) => {
  const mode = { PARLEY_PARK_WAITING_TURNS: parking };
  let environment: E2eEnvironment;
  let second: ApiProcess | undefined;
  let alice: E2eUser;
  const clients: ParleyClient[] = [];
  const recorders: MutationRecorder[] = [];

  beforeAll(async () => {
    environment = await startE2eEnvironment({ env: { ...mode, PARLEY_FAULT_DROP_NOTICES: "received" } });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    for (const recorder of recorders) recorder.stop();
    await Promise.all(clients.map((client) => client.close()));
    await second?.stop();
    await environment?.close();
  });

  it("A NOTIFY deliberately dropped (a fault hook): the answer still resumes the Turn within 2 s", async () => {
    const onA = environment.clientFor(alice, environment.api.url);
    const session = await onA.sessions.create({ title: `lost notice, parking ${parking}` });
    const feedA = new MutationRecorder(session, { after_event_id: 0 });
    recorders.push(feedA);
    const { turn_id } = await session.prompt("write notes.txt: answered elsewhere");
    const waiting = await feedA.waitFor(isToolState("waiting-user"));

    // B starts only now, so that A surely ran the Turn up to its approval (B's command sweep could
    // otherwise take the prompt, and A would hear nothing of that Turn).
    second = await startApiProcess({ database_url: environment.database.url, env: mode });
    const clientB = createParleyClient({ url: second.url, token: alice.token });
    clients.push(clientB);
    const onB = clientB.session(session.id);
    const feedB = new MutationRecorder(onB, { after_event_id: 0 });
    recorders.push(feedB);
    expect(
      await onB.respond({ interaction_id: latestInteractionIdOf(waiting), response: APPROVE }),
    ).toMatchObject({
      status: "resolved",
    });

    // The answer reaches the Turn within 2 s (asserted as 2 s): its tool completes, then it finishes.
    await waitUntil(
      "the answered tool to complete, seen by a client of B",
      () =>
        feedB.mutations.find(
          (mutation) =>
            mutation.variant === "part" &&
            mutation.part.type === "tool" &&
            mutation.part.state === "completed",
        ),
      REACH_TURN_MS,
      () => describeSession(environment.database.url, session.id),
    );
    const finish = await waitUntil(
      "the Turn's finish at a client of B",
      () => feedB.mutations.find(isTurnFinish),
      REACH_TURN_MS,
      () => describeSession(environment.database.url, session.id),
    );
    expect(finish).toMatchObject({ variant: "turn", type: "finish", turn_id, status: "completed" });
    const tool = feedB.mutations.filter(
      (mutation) => mutation.variant === "part" && mutation.part.type === "tool",
    );
    expect(tool.at(-1)).toMatchObject({ part: { state: "completed", tool_name: "write_file" } });
    expect(await onB.interactions()).toEqual([]);
    // The fault did fire: A dropped the notices of B's commits (the answer's among them).
    await waitUntil("A to log a dropped notice", () =>
      environment.api.output().includes('"msg":"fault: bus notice dropped"') ? true : undefined,
    );
    expect(second.output()).not.toContain("fault: bus notice dropped");
    expect(second.output()).not.toContain("FAULT HOOK");
  });
});
