import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN_ENDED_CLOSE_CODE } from "./server.js";
import {
  callRaw,
  type E2eEnvironment,
  issueTokenInDatabase,
  RawWebSocket,
  runCli,
  startE2eEnvironment,
  within,
} from "./testing/index.js";

/** Generous bound on a close that should come within about a second: the machine is loaded. */
const CLOSE_TIMEOUT_MS = 20_000;

async function whoamiStatus(
  url: string,
  token: string,
): Promise<{ status: number; parley_code: string | null }> {
  const result = await callRaw({ url, token, path: "auth.whoami", kind: "query" });
  return { status: result.status, parley_code: result.error?.parley_code ?? null };
}

/** Polls until the token is refused over HTTP (another process revoked it; the cache holds ~1 s). */
async function waitUntilRefused(
  url: string,
  token: string,
): Promise<{ status: number; parley_code: string | null }> {
  const deadline = Date.now() + CLOSE_TIMEOUT_MS;
  for (;;) {
    const answer = await whoamiStatus(url, token);
    if (answer.status !== 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A WebSocket signed in with `token` and one started subscription on the user's session. */
async function openSubscribedSocket(url: string, token: string, session_id: string): Promise<RawWebSocket> {
  const socket = await RawWebSocket.open(url, token);
  const started = await socket.subscribe(1, "session.onMutation", { session_id, lastEventId: "0" });
  expect(started.result?.type).toBe("started");
  return socket;
}

describe("token revocation and expiry", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("admin.users.revoke: the token is refused on HTTP at once and its open WebSocket is closed; others are untouched", async () => {
    const url = environment.api.url;
    const mia = await environment.createMember("mia");
    const bystander = await environment.createMember("bystander");
    const session = await mia.client().sessions.create({ title: "mia's" });
    const bystanderSession = await bystander.client().sessions.create({ title: "bystander's" });
    const socket = await openSubscribedSocket(url, mia.token, session.id);
    const otherSocket = await openSubscribedSocket(url, bystander.token, bystanderSession.id);

    expect(await environment.admin.client().admin.users.revoke({ name: "mia" })).toStrictEqual({
      revoked: 1,
    });

    expect(await whoamiStatus(url, mia.token)).toStrictEqual({ status: 401, parley_code: "unauthorized" });
    const closed = await within(socket.closed, CLOSE_TIMEOUT_MS, "mia's WebSocket close");
    expect(closed).toStrictEqual({ code: TOKEN_ENDED_CLOSE_CODE, reason: "token revoked" });

    expect(otherSocket.isOpen).toBe(true);
    const answer = await otherSocket.call(2, "query", "auth.whoami");
    expect(answer.result?.data).toMatchObject({ name: "bystander" });
    expect(await whoamiStatus(url, bystander.token)).toStrictEqual({ status: 200, parley_code: null });
    otherSocket.close();

    // A new token for the same user works again.
    expect(await environment.admin.client().admin.users.revoke({ name: "mia" })).toStrictEqual({
      revoked: 0,
    });
    await expect(environment.admin.client().admin.users.revoke({ name: "nobody" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(bystander.client().admin.users.revoke({ name: "mia" })).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("`token revoke --user NAME` from another process: HTTP refused and the WebSocket closed", async () => {
    const url = environment.api.url;
    const nico = await environment.createMember("nico");
    const session = await nico.client().sessions.create({ title: "nico's" });
    const socket = await openSubscribedSocket(url, nico.token, session.id);
    expect(await whoamiStatus(url, nico.token)).toStrictEqual({ status: 200, parley_code: null });

    const revoked = await runCli({
      database_url: environment.database.url,
      args: ["token", "revoke", "--user", "nico"],
    });
    expect({ code: revoked.code, stdout: revoked.stdout }).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^revoked 1 token\(s\) of nico /),
    });

    const closed = await within(socket.closed, CLOSE_TIMEOUT_MS, "nico's WebSocket close");
    expect(closed).toStrictEqual({ code: TOKEN_ENDED_CLOSE_CODE, reason: "token revoked" });
    expect(await waitUntilRefused(url, nico.token)).toStrictEqual({
      status: 401,
      parley_code: "unauthorized",
    });

    const unknown = await runCli({
      database_url: environment.database.url,
      args: ["token", "revoke", "--user", "nobody"],
    });
    expect({ code: unknown.code, stderr: unknown.stderr.trim() }).toStrictEqual({
      code: 1,
      stderr: "No user named nobody",
    });
  });

  it("an expiring token works until its expiry, then fails on HTTP and its open WebSocket is closed", async () => {
    const url = environment.api.url;
    const expires_at = Date.now() + 8_000;
    const issued = await issueTokenInDatabase({
      database_url: environment.database.url,
      user: "olga",
      role: "member",
      expires_at,
    });
    const socket = await RawWebSocket.open(url, issued.token);
    const answer = await socket.call(1, "query", "auth.whoami");
    expect(answer.result?.data).toMatchObject({ name: "olga" });

    const closed = await within(socket.closed, 8_000 + CLOSE_TIMEOUT_MS, "olga's WebSocket close");
    expect(closed).toStrictEqual({ code: TOKEN_ENDED_CLOSE_CODE, reason: "token expired" });
    expect(Date.now()).toBeGreaterThanOrEqual(expires_at);
    expect(await whoamiStatus(url, issued.token)).toStrictEqual({ status: 401, parley_code: "unauthorized" });
  });

  it("`token create --expires-in 30d` stores the expiry; a bad duration is a usage error", async () => {
    const before = Date.now();
    const created = await runCli({
      database_url: environment.database.url,
      args: ["token", "create", "--user", "pia", "--expires-in", "30d"],
    });
    const after = Date.now();
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd().split("\n").at(-1) ?? "";
    expect(await whoamiStatus(environment.api.url, token)).toStrictEqual({ status: 200, parley_code: null });
    const client = new pg.Client({ connectionString: environment.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ expires_at: string }>(
        "SELECT t.expires_at::text AS expires_at FROM api_tokens t JOIN users u USING (user_id) WHERE u.name = 'pia'",
      );
      expect(rows).toHaveLength(1);
      const expires_at = Number(rows[0]?.expires_at);
      const thirtyDays = 30 * 86_400_000;
      expect(expires_at).toBeGreaterThanOrEqual(before + thirtyDays);
      expect(expires_at).toBeLessThanOrEqual(after + thirtyDays);
    } finally {
      await client.end();
    }

    const bad = await runCli({
      database_url: environment.database.url,
      args: ["token", "create", "--user", "pia", "--expires-in", "soon"],
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("usage: parley token create");
  });
});
