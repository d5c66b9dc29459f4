import { describe, expect, it } from "vitest";
import { timeRuns } from "./stats.js";

describe("timeRuns", () => {
  it("calls the action for every warmup and run, in order, and times only the runs", async () => {
    const indices: number[] = [];
    const distribution = await timeRuns({ runs: 4, warmups: 2 }, async (index) => {
      indices.push(index);
    });
    expect(indices).toEqual([0, 1, 2, 3, 4, 5]);
    expect(distribution.n).toBe(4);
  });

  it("runs the calls one after another, never two at once", async () => {
    let running = 0;
    let most = 0;
    await timeRuns({ runs: 3, warmups: 1 }, async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running -= 1;
    });
    expect(most).toBe(1);
  });
});
