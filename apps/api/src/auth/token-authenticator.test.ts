import type { AuthenticatedToken } from "@parley/session-core";
import { describe, expect, it } from "vitest";
import { TokenAuthenticator } from "./token-authenticator.js";

const ada: AuthenticatedToken = {
  user: { user_id: "user:ada", name: "ada", role: "admin" },
  token_hash: "hash-ada",
  expires_at: null,
};

function countingStore(answers: Record<string, AuthenticatedToken>) {
  const lookups: string[] = [];
  return {
    lookups,
    authenticate: async (token: string) => {
      lookups.push(token);
      return answers[token] ?? null;
    },
  };
}

describe("TokenAuthenticator", () => {
  it("reuses a lookup, found or not, for ttl_ms, and concurrent requests share one", async () => {
    let now = 0;
    const store = countingStore({ good: ada });
    const authenticator = new TokenAuthenticator(store, { ttl_ms: 1_000, now: () => now });
    expect(
      await Promise.all([authenticator.authenticate("good"), authenticator.authenticate("good")]),
    ).toEqual([ada, ada]);
    expect(await authenticator.authenticate("bad")).toBeNull();
    now = 999;
    expect(await authenticator.authenticate("good")).toEqual(ada);
    expect(await authenticator.authenticate("bad")).toBeNull();
    expect(store.lookups).toEqual(["good", "bad"]);
    now = 1_000;
    await authenticator.authenticate("good");
    await authenticator.authenticate("bad");
    expect(store.lookups).toEqual(["good", "bad", "good", "bad"]);
  });

  it("forgets a user's entries at once, and refuses a cached token past its expiry", async () => {
    let now = 0;
    const expiring = { ...ada, token_hash: "hash-exp", expires_at: 500 };
    const store = countingStore({ good: ada, expiring });
    const authenticator = new TokenAuthenticator(store, { ttl_ms: 60_000, now: () => now });
    await authenticator.authenticate("good");
    authenticator.forgetUser("user:someone-else");
    await authenticator.authenticate("good");
    expect(store.lookups).toEqual(["good"]);
    authenticator.forgetUser("user:ada");
    await authenticator.authenticate("good");
    expect(store.lookups).toEqual(["good", "good"]);

    expect(await authenticator.authenticate("expiring")).toEqual(expiring);
    now = 500;
    expect(await authenticator.authenticate("expiring")).toBeNull();
  });

  it("keeps at most max_entries, dropping the oldest", async () => {
    const store = countingStore({});
    const authenticator = new TokenAuthenticator(store, { ttl_ms: 60_000, max_entries: 2, now: () => 0 });
    for (const token of ["a", "b", "c", "a"]) await authenticator.authenticate(token);
    expect(store.lookups).toEqual(["a", "b", "c", "a"]);
  });
});
