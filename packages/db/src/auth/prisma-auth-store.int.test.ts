import type { PrismaClient } from "@prisma/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../prisma-client.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { hashToken, PrismaAuthStore } from "./prisma-auth-store.js";

let database: TestDatabase;
let pool: pg.Pool;
let lookupPool: pg.Pool;
let prisma: PrismaClient;
let auth: PrismaAuthStore;
let now = 1_000_000;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  lookupPool = new pg.Pool({ connectionString: database.url, max: 1 });
  prisma = createPrismaClient(pool);
  auth = new PrismaAuthStore(prisma, { lookup_pool: lookupPool, clock: { now: () => now } });
});
afterAll(async () => {
  await prisma.$disconnect();
  await pool.end();
  await lookupPool.end();
  await database.drop();
});

describe("PrismaAuthStore", () => {
  it("creates users with unique names and finds them by name and id", async () => {
    const alice = await auth.createUser({ name: "alice", role: "member" });
    expect(alice).toMatchObject({ name: "alice", role: "member" });
    expect(alice.user_id).toMatch(/^user:/);
    expect(await auth.findUserByName("alice")).toStrictEqual(alice);
    expect(await auth.getUser(alice.user_id)).toStrictEqual(alice);
    expect(await auth.findUserByName("nobody")).toBeNull();
    await expect(auth.createUser({ name: "alice", role: "admin" })).rejects.toThrow();
  });

  it("ensures a user: creates once, keeps the id, raises to admin but never lowers", async () => {
    const created = await auth.ensureUser({ name: "bob", role: "member" });
    const again = await auth.ensureUser({ name: "bob", role: "member" });
    expect(again).toStrictEqual(created);
    const raised = await auth.ensureUser({ name: "bob", role: "admin" });
    expect(raised).toStrictEqual({ ...created, role: "admin" });
    expect(await auth.ensureUser({ name: "bob", role: "member" })).toStrictEqual(raised);
    const concurrent = await Promise.all(
      Array.from({ length: 20 }, () => auth.ensureUser({ name: "carol", role: "member" })),
    );
    expect(new Set(concurrent.map((user) => user.user_id)).size).toBe(1);
  });

  it("issues tokens stored only as their SHA-256 and authenticates them", async () => {
    const dave = await auth.createUser({ name: "dave", role: "admin" });
    const token = await auth.issueToken(dave.user_id);
    expect(token).toMatch(/^parley_[A-Za-z0-9_-]{43}$/);
    const second = await auth.issueToken(dave.user_id);
    expect(second).not.toBe(token);
    const { rows } = await pool.query<{ token_hash: string }>(
      "SELECT token_hash FROM api_tokens WHERE user_id = $1 ORDER BY token_hash",
      [dave.user_id],
    );
    expect(rows.map((row) => row.token_hash)).toEqual([hashToken(token), hashToken(second)].sort());
    expect(rows.some((row) => row.token_hash.includes(token))).toBe(false);

    expect(await auth.authenticate(token)).toStrictEqual({
      user: dave,
      token_hash: hashToken(token),
      expires_at: null,
    });
    expect((await auth.authenticate(second))?.user).toStrictEqual(dave);
    expect(await auth.authenticate(`${token}x`)).toBeNull();
    expect(await auth.authenticate("not-a-token")).toBeNull();
    expect(await auth.authenticate("")).toBeNull();

    expect(await auth.liveTokenHashes([hashToken(token), hashToken("parley_unknown")])).toStrictEqual(
      new Set([hashToken(token)]),
    );
    expect(await auth.revokeTokens(dave.user_id)).toBe(2);
    expect(await auth.authenticate(token)).toBeNull();
    expect(await auth.authenticate(second)).toBeNull();
    expect(await auth.liveTokenHashes([hashToken(token), hashToken(second)])).toStrictEqual(new Set());
  });

  it("stops authenticating a token at its expiry, and revoking one user leaves the others", async () => {
    const erin = await auth.createUser({ name: "erin", role: "member" });
    const frank = await auth.createUser({ name: "frank", role: "member" });
    const expiring = await auth.issueToken(erin.user_id, { expires_at: now + 1_000 });
    const lasting = await auth.issueToken(frank.user_id);
    expect(await auth.authenticate(expiring)).toStrictEqual({
      user: erin,
      token_hash: hashToken(expiring),
      expires_at: now + 1_000,
    });
    now += 999;
    expect((await auth.authenticate(expiring))?.user).toStrictEqual(erin);
    now += 1;
    expect(await auth.authenticate(expiring)).toBeNull();
    expect(await auth.liveTokenHashes([hashToken(expiring), hashToken(lasting)])).toStrictEqual(
      new Set([hashToken(lasting)]),
    );
    expect(await auth.revokeTokens(erin.user_id)).toBe(1);
    expect((await auth.authenticate(lasting))?.user).toStrictEqual(frank);
  });
});
