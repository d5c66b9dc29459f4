import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limiter.js";

describe("RateLimiter", () => {
  it("allows the capacity at once, refuses the next, and refills evenly over the window", () => {
    let now = 0;
    // 2 calls per 2,048 ms: one call back every 1,024 ms (exact in binary floating point).
    const limiter = new RateLimiter({ capacity: 2, window_ms: 2_048, now: () => now });
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([true, true, false]);
    expect(limiter.take("b")).toBe(true);
    now = 1_023;
    expect(limiter.take("a")).toBe(false);
    now = 1_024;
    expect(limiter.take("a")).toBe(true);
    expect(limiter.take("a")).toBe(false);
  });

  it("never refuses with capacity 0 (the limit is off)", () => {
    const limiter = new RateLimiter({ capacity: 0, window_ms: 1_000 });
    for (let call = 0; call < 1_000; call += 1) expect(limiter.take("a")).toBe(true);
  });
});
