import { createParleyClient, type ParleyClient } from "@parley/sdk";
import {
  isToolState,
  isTurnFinish,
  MutationRecorder,
  toolPartsOfMutation,
  toolStatesIn,
} from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InMemoryApi, startInMemoryApi } from "./testing/in-memory-api.js";

describe("API server in process (in-memory adapters, demo model)", () => {
  let api: InMemoryApi;
  const clients: ParleyClient[] = [];
  const clientFor = (token: string) => {
    const client = createParleyClient({ url: api.server.url, token });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    api = await startInMemoryApi();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await api?.close();
  });

  it("runs an approval from prompt to resumed Turn over HTTP and WebSocket", async () => {
    const alice = await api.addUser("alice", "member");
    const admin = await api.addUser("root", "admin");
    const session = await clientFor(alice.token).sessions.create({ title: "in process" });
    const feed = new MutationRecorder(clientFor(alice.token).session(session.id), { after_event_id: 0 });
    await session.prompt("delete notes.txt");
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    const tool = toolPartsOfMutation(waiting).at(-1);
    const interaction = tool?.interactions?.[0];
    expect(interaction?.status).toBe("pending");
    const result = await clientFor(admin.token)
      .session(session.id)
      .respond({
        interaction_id: interaction?.interaction_id ?? "",
        response: { type: "approval", outcome: "denied", payload: { decision: "denied" } },
      });
    expect(result.status).toBe("denied");
    const finish = await feed.waitFor(isTurnFinish);
    expect(finish).toMatchObject({ variant: "turn", type: "finish" });
    expect(feed.eventIds()).toEqual(Array.from({ length: feed.durable().length }, (_, index) => index + 1));
    // Durably the tool waits, then fails once (the deny), and never completes.
    expect(toolStatesIn(feed.durable(), tool?.tool_call_id ?? "")).toEqual(["waiting-user", "failed"]);
    expect(feed.errors).toEqual([]);
    feed.stop();
  });

  it("maps domain errors to ParleyError codes", async () => {
    const bob = await api.addUser("bob", "member");
    const client = clientFor(bob.token);
    await expect(client.session("session:missing").status()).rejects.toMatchObject({
      name: "ParleyError",
      code: "session_not_found",
    });
    await expect(client.admin.interactions()).rejects.toMatchObject({ code: "forbidden" });
    await expect(clientFor("wrong").auth.whoami()).rejects.toMatchObject({ code: "unauthorized" });
    // The in-memory store decodes cursors with the same codec as Postgres: a bad one is the caller's error.
    await expect(client.sessions.list({ cursor: "not a cursor" })).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("creates users through admin.users.create once per name; the token works at once", async () => {
    const admin = clientFor((await api.addUser("boss", "admin")).token);
    const created = await admin.admin.users.create({ name: "frank", role: "member" });
    expect(await clientFor(created.token).auth.whoami()).toEqual({
      user_id: created.user_id,
      name: "frank",
      role: "member",
    });
    await expect(admin.admin.users.create({ name: "frank", role: "admin" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(admin.admin.users.create({ name: "has space", role: "member" })).rejects.toMatchObject({
      code: "invalid_input",
    });
  });

  it("ends subscriptions the caller may not open with a typed error", async () => {
    const carol = await api.addUser("carol", "member");
    const dave = await api.addUser("dave", "member");
    const session = await clientFor(carol.token).sessions.create();
    const errorOf = (subscribe: (onError: (error: unknown) => void) => () => void) =>
      new Promise<unknown>((resolve) => {
        const unsubscribe = subscribe((error) => {
          unsubscribe();
          resolve(error);
        });
      });
    const foreign = await errorOf((onError) =>
      clientFor(dave.token)
        .session(session.id)
        .subscribe(() => undefined, { onError }),
    );
    expect(foreign).toMatchObject({ name: "ParleyError", code: "session_not_found" });
    const anonymous = await errorOf((onError) =>
      clientFor("nobody")
        .session(session.id)
        .subscribe(() => undefined, { onError }),
    );
    expect(anonymous).toMatchObject({ code: "unauthorized" });
    const member = await errorOf((onError) =>
      clientFor(dave.token).admin.subscribe(() => undefined, { onError }),
    );
    expect(member).toMatchObject({ code: "forbidden" });
  });
});
