import { describe, expect, it } from "vitest";
import { createRandomIdSource } from "./clock.js";

describe("createRandomIdSource", () => {
  it("mints ids of the asked length from the 64-symbol alphabet, none repeated across pool refills", () => {
    const source = createRandomIdSource();
    // 4096-byte pools of 16-byte ids: 256 per pool, so 1,000 ids span four refills.
    const ids = Array.from({ length: 1_000 }, () => source.next());
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z_-]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("serves lengths that do not divide the pool, and lengths beyond it", () => {
    const odd = createRandomIdSource(7);
    const long = createRandomIdSource(5_000);
    const ids = Array.from({ length: 1_200 }, () => odd.next());
    expect(ids.every((id) => id.length === 7)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(long.next()).toHaveLength(5_000);
    expect(long.next()).not.toEqual(long.next());
  });
});
