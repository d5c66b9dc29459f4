import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRaw, type E2eEnvironment, RawWebSocket, startE2eEnvironment, within } from "./testing/index.js";

const LIMITS = {
  PARLEY_MAX_CONNECTIONS_PER_USER: "2",
  PARLEY_MAX_SUBSCRIPTIONS_PER_CONNECTION: "2",
  PARLEY_MAX_BATCH_SIZE: "3",
  // 20 calls per token, refilled over an hour: nothing comes back while the test runs.
  PARLEY_RATE_LIMIT_REQUESTS: "20",
  PARLEY_RATE_LIMIT_WINDOW_MS: "3600000",
};

/** A batched GET of `count` `auth.whoami` calls, as httpBatchLink sends them. */
async function batchedWhoami(url: string, token: string, count: number) {
  const paths = Array.from({ length: count }, () => "auth.whoami").join(",");
  const input = Object.fromEntries(Array.from({ length: count }, (_, index) => [String(index), {}]));
  const response = await fetch(
    `${url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  const body = (await response.json()) as {
    result?: { data?: { name?: string } };
    error?: { data?: { parley_code?: string } };
  }[];
  return {
    status: response.status,
    answers: body.map((item) => item.result?.data?.name ?? item.error?.data?.parley_code ?? "?"),
  };
}

describe("resource limits at their edges (one over is refused, nothing else is affected)", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment({ env: LIMITS });
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("WebSocket connections per user: the third is refused with limit_exceeded; the two stay usable, others connect", async () => {
    const url = environment.api.url;
    const cora = await environment.createMember("cora");
    const dora = await environment.createMember("dora");
    const first = await RawWebSocket.open(url, cora.token);
    const second = await RawWebSocket.open(url, cora.token);
    expect((await first.call(1, "query", "auth.whoami")).result?.data).toMatchObject({ name: "cora" });
    expect((await second.call(1, "query", "auth.whoami")).result?.data).toMatchObject({ name: "cora" });

    const third = await RawWebSocket.open(url, cora.token);
    const refusal = await third.waitForFrame((frame) => frame.id === null && frame.error !== undefined);
    expect(refusal.error?.data?.parley_code).toBe("limit_exceeded");
    await within(third.closed, 20_000, "the refused socket's close");

    expect((await first.call(2, "query", "auth.whoami")).result?.data).toMatchObject({ name: "cora" });
    const other = await RawWebSocket.open(url, dora.token);
    expect((await other.call(1, "query", "auth.whoami")).result?.data).toMatchObject({ name: "dora" });
    expect((await callRaw({ url, token: cora.token, path: "auth.whoami", kind: "query" })).status).toBe(200);

    // A closed connection frees its place.
    second.close();
    await second.closed;
    const replacement = await RawWebSocket.open(url, cora.token);
    expect((await replacement.call(1, "query", "auth.whoami")).result?.data).toMatchObject({ name: "cora" });
    for (const socket of [first, other, replacement]) socket.close();
  });

  it("subscriptions per connection: the third is refused; the two keep delivering, and a stopped one frees its place", async () => {
    const url = environment.api.url;
    const ezra = await environment.createMember("ezra");
    const session = await ezra.client().sessions.create({ title: "subscribed" });
    const socket = await RawWebSocket.open(url, ezra.token);
    const input = { session_id: session.id };
    expect((await socket.subscribe(1, "session.onMutation", input)).result?.type).toBe("started");
    expect((await socket.subscribe(2, "session.onMutation", input)).result?.type).toBe("started");
    const refused = await socket.subscribe(3, "session.onMutation", input);
    expect(refused.error?.data?.parley_code).toBe("limit_exceeded");

    await ezra.client().session(session.id).prompt("hello");
    for (const id of [1, 2]) {
      await socket.waitForFrame((frame) => frame.id === id && frame.result?.type === "data");
    }
    expect(socket.frames.some((frame) => frame.id === 3 && frame.result?.type === "data")).toBe(false);

    socket.send({ id: 1, method: "subscription.stop" });
    await socket.waitForFrame((frame) => frame.id === 1 && frame.result?.type === "stopped");
    expect((await socket.subscribe(4, "session.onMutation", input)).result?.type).toBe("started");
    expect(socket.isOpen).toBe(true);
    socket.close();
  });

  it("batch size per HTTP request: 3 calls answer, 4 are invalid_input", async () => {
    const url = environment.api.url;
    const finn = await environment.createMember("finn");
    expect(await batchedWhoami(url, finn.token, 3)).toStrictEqual({
      status: 200,
      answers: ["finn", "finn", "finn"],
    });
    const over = await batchedWhoami(url, finn.token, 4);
    expect(over.status).toBe(400);
    expect(over.answers).toStrictEqual(["invalid_input", "invalid_input", "invalid_input", "invalid_input"]);
  });

  it("request rate per token: 20 calls answer, the 21st is limit_exceeded (429); another token is unaffected", async () => {
    const url = environment.api.url;
    const gina = await environment.createMember("gina");
    const hugo = await environment.createMember("hugo");
    const statuses: number[] = [];
    for (let call = 0; call < 20; call += 1) {
      statuses.push((await callRaw({ url, token: gina.token, path: "auth.whoami", kind: "query" })).status);
    }
    expect(statuses).toStrictEqual(Array.from({ length: 20 }, () => 200));
    const over = await callRaw({ url, token: gina.token, path: "auth.whoami", kind: "query" });
    expect({ status: over.status, parley_code: over.error?.parley_code }).toStrictEqual({
      status: 429,
      parley_code: "limit_exceeded",
    });
    expect((await callRaw({ url, token: hugo.token, path: "auth.whoami", kind: "query" })).status).toBe(200);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
  });
});
