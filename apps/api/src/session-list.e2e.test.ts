import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRaw, type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/index.js";

/** Lists every page of `session.list` for one client and query, newest first. */
async function listAll(
  user: E2eUser,
  query: { scope?: "own" | "all"; query?: string } = {},
): Promise<{ session_id: string; owner_id: string; title: string }[]> {
  const client = user.client();
  const items: { session_id: string; owner_id: string; title: string }[] = [];
  let cursor: string | null = null;
  do {
    const page = await client.sessions.list({ ...query, limit: 2, ...(cursor === null ? {} : { cursor }) });
    items.push(...page.items.map(({ session_id, owner_id, title }) => ({ session_id, owner_id, title })));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

describe("session.list scopes and search, users.names", () => {
  let environment: E2eEnvironment;
  let ada: E2eUser;
  let bob: E2eUser;
  const created: Record<string, string> = {};
  const createdAt = new Map<string, { created_at: number; session_id: string }>();

  /**
   * The titles in the list's order: newest first, ties (same millisecond) by `session_id`
   * descending in byte order, as the server sorts.
   */
  const newestFirst = (...titles: string[]) =>
    titles
      .map((title) => ({ title, ...(createdAt.get(title) ?? { created_at: 0, session_id: "" }) }))
      .sort((a, b) =>
        a.created_at !== b.created_at
          ? b.created_at - a.created_at
          : a.session_id < b.session_id
            ? 1
            : a.session_id > b.session_id
              ? -1
              : 0,
      )
      .map((entry) => entry.title);

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    ada = await environment.createMember("ada.lovelace");
    bob = await environment.createMember("bob");
    for (const [user, title] of [
      [ada, "Deploy the docs"],
      [bob, "deploy staging"],
      [environment.admin, "Admin notes"],
      [ada, "Fix 100% CPU_bug"],
      [bob, "Read the logs"],
      [bob, "DEPLOY production"],
    ] as const) {
      const session = await user.client().sessions.create({ title });
      const info = await session.info();
      created[title] = session.id;
      createdAt.set(title, { created_at: info.created_at, session_id: session.id });
    }
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("a member lists exactly their own sessions, newest first, and may not ask for everyone's", async () => {
    const adas = await listAll(ada);
    expect(adas.map((item) => item.title)).toEqual(newestFirst("Fix 100% CPU_bug", "Deploy the docs"));
    expect(adas).toContainEqual({
      session_id: created["Deploy the docs"],
      owner_id: ada.user_id,
      title: "Deploy the docs",
    });
    expect(adas.every((item) => item.owner_id === ada.user_id)).toBe(true);
    expect((await listAll(bob)).map((item) => item.title)).toEqual(
      newestFirst("DEPLOY production", "Read the logs", "deploy staging"),
    );
    expect(await listAll(bob, { scope: "own" })).toEqual(await listAll(bob));
    await expect(ada.client().sessions.list({ scope: "all" })).rejects.toMatchObject({ code: "forbidden" });
    const raw = await callRaw({
      url: environment.api.url,
      token: bob.token,
      path: "session.list",
      kind: "query",
      input: { scope: "all" },
    });
    expect(raw).toMatchObject({ status: 403, error: { parley_code: "forbidden" } });
  });

  it("an admin lists every user's sessions with scope all, and only their own without it", async () => {
    const all = await listAll(environment.admin, { scope: "all" });
    expect(all.map((item) => item.title)).toEqual(
      newestFirst(
        "DEPLOY production",
        "Read the logs",
        "Fix 100% CPU_bug",
        "Admin notes",
        "deploy staging",
        "Deploy the docs",
      ),
    );
    expect(all.filter((item) => item.owner_id === ada.user_id)).toHaveLength(2);
    expect(all.filter((item) => item.owner_id === bob.user_id)).toHaveLength(3);
    expect(all.filter((item) => item.owner_id === environment.admin.user_id)).toHaveLength(1);
    expect(await listAll(environment.admin)).toEqual([
      { session_id: created["Admin notes"], owner_id: environment.admin.user_id, title: "Admin notes" },
    ]);
  });

  it("query matches titles case-insensitively and literally, within the caller's scope", async () => {
    expect((await listAll(bob, { query: "deploy" })).map((item) => item.title)).toEqual(
      newestFirst("DEPLOY production", "deploy staging"),
    );
    expect((await listAll(ada, { query: "DEPLOY" })).map((item) => item.title)).toEqual(["Deploy the docs"]);
    expect(
      (await listAll(environment.admin, { scope: "all", query: "Deploy" })).map((item) => item.title),
    ).toEqual(newestFirst("DEPLOY production", "deploy staging", "Deploy the docs"));
    // `%` and `_` are text, not patterns.
    expect(
      (await listAll(environment.admin, { scope: "all", query: "100%" })).map((item) => item.title),
    ).toEqual(["Fix 100% CPU_bug"]);
    expect(await listAll(environment.admin, { scope: "all", query: "0_%" })).toEqual([]);
    expect(await listAll(environment.admin, { scope: "all", query: "Fix_" })).toEqual([]);
    // Blank is no filter.
    expect(await listAll(ada, { query: "   " })).toHaveLength(2);
    expect(await listAll(ada, { query: "nothing like this" })).toEqual([]);
  });

  it("a malformed, truncated or other-list cursor is a 400 invalid_input, never an internal error", async () => {
    const sessionsCursor = (await bob.client().sessions.list({ limit: 1 })).next_cursor;
    expect(sessionsCursor).not.toBeNull();
    const cursors = ["not a cursor", (sessionsCursor ?? "").slice(0, -3), `${sessionsCursor}==`];
    for (const cursor of cursors) {
      for (const [path, token] of [
        ["session.list", bob.token],
        ["admin.interactions", environment.admin.token],
      ] as const) {
        const answer = await callRaw({
          url: environment.api.url,
          token,
          path,
          kind: "query",
          input: { cursor },
        });
        expect(answer, `${path} with ${cursor}`).toMatchObject({
          status: 400,
          error: { parley_code: "invalid_input" },
        });
      }
    }
    // A sessions cursor is not an inbox cursor.
    await expect(
      environment.admin.client().admin.interactions({ cursor: sessionsCursor ?? "" }),
    ).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("users.names resolves the names of known ids once each, for members and admins alike", async () => {
    const ids = [bob.user_id, ada.user_id, "user:unknown", bob.user_id, environment.admin.user_id];
    const expected = {
      items: [
        { user_id: bob.user_id, name: "bob" },
        { user_id: ada.user_id, name: "ada.lovelace" },
        { user_id: environment.admin.user_id, name: environment.admin.name },
      ],
    };
    expect(await ada.client().users.names({ user_ids: ids })).toEqual(expected);
    expect(await environment.admin.client().users.names({ user_ids: ids })).toEqual(expected);
    expect(await bob.client().users.names({ user_ids: [] })).toEqual({ items: [] });
    const tooMany = Array.from({ length: 101 }, (_, index) => `user:${index}`);
    await expect(bob.client().users.names({ user_ids: tooMany })).rejects.toMatchObject({
      code: "invalid_input",
    });
    const anonymous = await callRaw({
      url: environment.api.url,
      token: null,
      path: "users.names",
      kind: "query",
      input: { user_ids: [ada.user_id] },
    });
    expect(anonymous).toMatchObject({ status: 401, error: { parley_code: "unauthorized" } });
  });
});
