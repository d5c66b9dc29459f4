import { afterEach, describe, expect, it, vi } from "vitest";
import { ParkGrace } from "./park-grace.js";

describe("ParkGrace", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds at most `capacity` Turns at once; one that ends or whose grace is over makes room", () => {
    vi.useFakeTimers();
    const grace = new ParkGrace(100, 2);
    const over: string[] = [];
    expect(grace.hasRoom).toBe(true);
    const endA = grace.hold({}, () => over.push("a"));
    grace.hold({}, () => over.push("b"));
    expect([grace.size, grace.hasRoom]).toEqual([2, false]);
    endA();
    expect([grace.size, grace.hasRoom]).toEqual([1, true]);
    vi.advanceTimersByTime(100);
    // The ended one's grace never reports over.
    expect(over).toEqual(["b"]);
    expect(grace.size).toBe(0);
  });

  it("a grace of 0 has no room: waiting Turns park at once", () => {
    expect(new ParkGrace(0).hasRoom).toBe(false);
  });
});
