import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRaw, type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/index.js";

describe("HTTP surface: health, CORS, batching, limits", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment({ env: { PARLEY_WORKSPACES: `shared=${process.cwd()}` } });
    alice = await environment.createMember("alice");
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("GET /healthz answers 200 {ok:true} without a token", async () => {
    const response = await fetch(`${environment.api.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("answers CORS preflights for bearer-token browsers", async () => {
    const response = await fetch(`${environment.api.url}/trpc/session.list`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toContain("authorization");
  });

  it("batches several calls in one request", async () => {
    const input = encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }));
    const response = await fetch(
      `${environment.api.url}/trpc/auth.whoami,workspace.list?batch=1&input=${input}`,
      {
        headers: { authorization: `Bearer ${alice.token}` },
      },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { result: { data: { user_id: alice.user_id, name: "alice", role: "member" } } },
      { result: { data: { items: [{ workspace_id: "shared" }] } } },
    ]);
  });

  it("streams a subscription over SSE, authenticated by connectionParams, replaying from lastEventId", async () => {
    const session = await alice.client().sessions.create({ title: "sse" });
    await session.prompt("list files");
    const input = encodeURIComponent(JSON.stringify({ session_id: session.id, lastEventId: "0" }));
    const params = encodeURIComponent(JSON.stringify({ token: alice.token }));
    const controller = new AbortController();
    const response = await fetch(
      `${environment.api.url}/trpc/session.onMutation?input=${input}&connectionParams=${params}`,
      { headers: { accept: "text/event-stream" }, signal: controller.signal },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!/^id: ?2$/m.test(received)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      received += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
    const ids = [...received.matchAll(/^id: ?(\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids.slice(0, 2)).toEqual([1, 2]);
    const firstEvent = received.split("\n\n").find((event) => /^id: ?1$/m.test(event)) ?? "";
    const firstData = /^data: ?(.+)$/m.exec(firstEvent)?.[1] ?? "{}";
    expect(JSON.parse(firstData)).toMatchObject({ event_id: 1, session_id: session.id });
  });

  it("refuses a body over 1 MiB, malformed JSON and unknown procedures as invalid_input", async () => {
    const huge = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.create",
      kind: "mutation",
      raw_body: JSON.stringify({ title: "x".repeat(1024 * 1024 + 1) }),
    });
    expect(huge).toMatchObject({ status: 413, error: { parley_code: "invalid_input" } });
    const malformed = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.create",
      kind: "mutation",
      raw_body: "{not json",
    });
    expect(malformed.error?.parley_code).toBe("invalid_input");
    expect(malformed.status).toBe(400);
    const unknown = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.nope",
      kind: "query",
    });
    expect(unknown.error?.parley_code).toBe("invalid_input");
  });

  it("rejects unknown keys, limits above their maximum and unknown workspaces instead of clamping", async () => {
    const client = alice.client();
    await expect(client.sessions.list({ limit: 201 })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(client.sessions.create({ workspace_id: "nowhere" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    const strict = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.create",
      kind: "mutation",
      input: { title: "t", owner_id: "someone-else" },
    });
    expect(strict.error?.parley_code).toBe("invalid_input");
    const session = await client.sessions.create({ title: "limits", workspace_id: "shared" });
    expect((await session.info()).workspace_id).toBe("shared");
    await expect(session.messages({ limit: 501 })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(session.prompt("x".repeat(32_001))).rejects.toMatchObject({ code: "invalid_input" });
    await expect(session.set({}, {})).rejects.toMatchObject({ code: "invalid_input" });
    await expect(
      session.set(
        { security: { approval_mode: "always-allow" } },
        { persist_action: false, publish_mutation: true },
      ),
    ).rejects.toMatchObject({ code: "invalid_input" });
    expect(await session.set({ security: { approval_mode: "ask" } })).toEqual({ queued: false });
    const listed = (await client.sessions.list({ limit: 200 })).items;
    expect(listed[0]?.session_id).toBe(session.id);
    expect(listed.every((item) => item.owner_id === alice.user_id)).toBe(true);
  });
});
