import { describe, expect, it } from "vitest";
import { NextSequence } from "./next-sequence.js";

function counted(last: number[]) {
  const reads = { count: 0 };
  const sequence = new NextSequence(async () => {
    reads.count += 1;
    const value = last.shift();
    if (value === undefined) throw new Error("store down");
    return value;
  });
  return { sequence, reads };
}

describe("NextSequence", () => {
  it("reads the session's last sequence once, then moves past each message taken", async () => {
    const { sequence, reads } = counted([4]);
    expect(await sequence.peek()).toBe(5);
    sequence.advancePast(5);
    expect(await sequence.peek()).toBe(6);
    expect(reads.count).toBe(1);
  });

  it("a sequence read under the session's lock replaces what was known, and serves the next peek", async () => {
    const { sequence, reads } = counted([9]);
    expect(await sequence.peek()).toBe(10);
    sequence.readUnderLock(12);
    expect(await sequence.peek()).toBe(12);
    expect(reads.count).toBe(1);
  });

  it("forget makes the next peek read; reread takes the fresh value and never moves back", async () => {
    const { sequence } = counted([1, 7, 3]);
    sequence.advancePast(await sequence.peek());
    sequence.forget();
    expect(await sequence.peek()).toBe(8);
    expect(await sequence.reread()).toBe(4);
    expect(await sequence.peek()).toBe(8);
  });
});
