import { createParleyClient, type ParleyClient, ParleyError } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRaw,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startE2eEnvironment,
} from "./testing/index.js";

interface ProcedureCall {
  path: string;
  kind: "query" | "mutation";
  input: unknown;
}

/** The observable state of a session: must be identical before and after every refused call. */
async function snapshotSession(client: ParleyClient, session_id: string) {
  const session = client.session(session_id);
  return {
    info: await session.info(),
    status: await session.status(),
    interactions: await session.interactions(),
    messages: await session.messages(),
  };
}

/** Subscribes and resolves the error the subscription ends with. */
function subscriptionError(subscribe: (onError: (error: unknown) => void) => () => void): Promise<unknown> {
  return new Promise((resolve) => {
    const unsubscribe = subscribe((error) => {
      unsubscribe();
      resolve(error);
    });
  });
}

describe("authorization matrix", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  let bob: E2eUser;
  let session_id: string;
  let interaction_id: string;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
    bob = await environment.createMember("bob");
    const session = await alice.client().sessions.create({ title: "alice's" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("delete notes.txt");
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    feed.stop();
    session_id = session.id;
    interaction_id = latestInteractionIdOf(waiting);
  });

  afterAll(async () => {
    await environment?.close();
  });

  const sessionCalls = (): ProcedureCall[] => [
    { path: "session.get", kind: "query", input: { session_id } },
    { path: "session.messages", kind: "query", input: { session_id } },
    { path: "session.interactions", kind: "query", input: { session_id } },
    { path: "session.status", kind: "query", input: { session_id } },
    { path: "session.prompt", kind: "mutation", input: { session_id, query: "list files" } },
    {
      path: "session.respond",
      kind: "mutation",
      input: {
        session_id,
        interaction_id,
        response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      },
    },
    {
      path: "session.set",
      kind: "mutation",
      input: { session_id, input: { security: { approval_mode: "always-allow" } } },
    },
    { path: "session.stop", kind: "mutation", input: { session_id } },
    { path: "session.rename", kind: "mutation", input: { session_id, title: "taken over" } },
    { path: "session.close", kind: "mutation", input: { session_id } },
  ];

  const otherCalls = (): ProcedureCall[] => [
    { path: "session.create", kind: "mutation", input: { title: "x" } },
    { path: "session.list", kind: "query", input: {} },
    { path: "admin.interactions", kind: "query", input: { status: "pending" } },
    { path: "admin.users.create", kind: "mutation", input: { name: "mallory", role: "admin" } },
    { path: "admin.users.revoke", kind: "mutation", input: { name: "alice" } },
    { path: "auth.whoami", kind: "query", input: undefined },
    { path: "workspace.list", kind: "query", input: undefined },
    { path: "model.list", kind: "query", input: undefined },
    { path: "users.names", kind: "query", input: { user_ids: [] } },
  ];

  it("without a token (or with an unknown one) every procedure is unauthorized and nothing changes", async () => {
    const before = await snapshotSession(alice.client(), session_id);
    for (const token of [null, "not-a-real-token"]) {
      for (const call of [...sessionCalls(), ...otherCalls()]) {
        const result = await callRaw({ url: environment.api.url, token, ...call });
        expect({ path: call.path, status: result.status, parley_code: result.error?.parley_code }).toEqual({
          path: call.path,
          status: 401,
          parley_code: "unauthorized",
        });
      }
    }
    const anonymous = createParleyClient({ url: environment.api.url, token: "not-a-real-token" });
    try {
      const sessionError = await subscriptionError((onError) =>
        anonymous.session(session_id).subscribe(() => undefined, { after_event_id: 0, onError }),
      );
      expect(sessionError).toBeInstanceOf(ParleyError);
      expect(sessionError).toMatchObject({ code: "unauthorized" });
      const adminError = await subscriptionError((onError) =>
        anonymous.admin.subscribe(() => undefined, { after_event_id: 0, onError }),
      );
      expect(adminError).toMatchObject({ code: "unauthorized" });
    } finally {
      await anonymous.close();
    }
    expect(await snapshotSession(alice.client(), session_id)).toEqual(before);
  });

  it("another member's session is session_not_found for every session procedure, and nothing changes", async () => {
    const before = await snapshotSession(alice.client(), session_id);
    for (const call of sessionCalls()) {
      const result = await callRaw({ url: environment.api.url, token: bob.token, ...call });
      expect({ path: call.path, status: result.status, parley_code: result.error?.parley_code }).toEqual({
        path: call.path,
        status: 404,
        parley_code: "session_not_found",
      });
    }
    const missing = await callRaw({
      url: environment.api.url,
      token: bob.token,
      path: "session.get",
      kind: "query",
      input: { session_id: "session:does-not-exist" },
    });
    expect(missing.error?.parley_code).toBe("session_not_found");

    const bobClient = bob.client();
    const subscribeError = await subscriptionError((onError) =>
      bobClient.session(session_id).subscribe(() => undefined, { after_event_id: 0, onError }),
    );
    expect(subscribeError).toMatchObject({ code: "session_not_found" });
    expect((await bobClient.sessions.list()).items.map((item) => item.session_id)).not.toContain(session_id);
    expect((await alice.client().sessions.list()).items.map((item) => item.session_id)).toEqual([session_id]);

    expect(await snapshotSession(alice.client(), session_id)).toEqual(before);
    expect(before.interactions.map((request) => request.interaction_id)).toEqual([interaction_id]);
  });

  it("a member calling admin procedures is forbidden; an admin reaches them and every session", async () => {
    const bobClient = bob.client();
    await expect(bobClient.admin.interactions({ status: "pending" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(bobClient.admin.users.create({ name: "mallory", role: "admin" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(bobClient.admin.users.revoke({ name: "alice" })).rejects.toMatchObject({
      code: "forbidden",
    });
    const feedError = await subscriptionError((onError) =>
      bobClient.admin.subscribe(() => undefined, { after_event_id: 0, onError }),
    );
    expect(feedError).toMatchObject({ code: "forbidden" });
    const raw = await callRaw({
      url: environment.api.url,
      token: bob.token,
      path: "admin.interactions",
      kind: "query",
      input: {},
    });
    expect(raw).toMatchObject({ status: 403, error: { parley_code: "forbidden" } });

    const admin = environment.admin.client();
    expect((await admin.session(session_id).info()).owner_id).toBe(alice.user_id);
    const inbox = await admin.admin.interactions({ status: "pending" });
    expect(inbox.items.map((item) => item.interaction.interaction_id)).toEqual([interaction_id]);
    expect(await bobClient.auth.whoami()).toEqual({ user_id: bob.user_id, name: "bob", role: "member" });
  });
});

// The Turn held through a long grace (the variant PARLEY_PARK_GRACE_MS=60000), so that every answer
// below is taken from memory, not read (`SessionRuntimeApi.heldAnswer`): access is checked the same.
describe("an answer to a Turn held in its grace", () => {
  let environment: E2eEnvironment;

  afterAll(async () => {
    await environment?.close();
  });

  it("from another member is session_not_found before its response is judged; the owner's answer resumes the Turn once", async () => {
    environment = await startE2eEnvironment({ env: { PARLEY_PARK_GRACE_MS: "60000" } });
    const alice = await environment.createMember("alice");
    const bob = await environment.createMember("bob");
    const session = await alice.client().sessions.create({ title: "alice's" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("write todo.md: buy milk");
    const interaction_id = latestInteractionIdOf(await feed.waitFor(isToolState("waiting-user")));
    const answer = (response: unknown) =>
      callRaw({
        url: environment.api.url,
        token: bob.token,
        path: "session.respond",
        kind: "mutation",
        input: { session_id: session.id, interaction_id, response },
      });

    for (const response of [
      { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      { type: "approval", outcome: "resolved", payload: { decision: "nonsense" } },
    ]) {
      const refused = await answer(response);
      expect({ status: refused.status, parley_code: refused.error?.parley_code }).toEqual({
        status: 404,
        parley_code: "session_not_found",
      });
    }
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);

    await expect(
      session.respond({
        interaction_id,
        response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
      }),
    ).resolves.toMatchObject({ status: "resolved" });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ status: "completed" });
    feed.stop();
    expect(await session.interactions()).toEqual([]);
    const tools = (await session.messages()).items.flatMap((message) =>
      message.type === "assistant" ? message.parts.filter((part) => part.type === "tool") : [],
    );
    expect(tools.map((part) => [part.state, part.error, part.interactions?.[0]?.responded_by])).toEqual([
      ["completed", undefined, alice.user_id],
    ]);
  });
});
