import { describe, expect, it } from "vitest";
import { TickTally } from "./backend-cpu.js";

const reading = (entries: [number, number][]) => new Map(entries);

describe("TickTally", () => {
  it("counts the processes of the first reading from that reading", () => {
    const tally = new TickTally();
    tally.observe(
      reading([
        [10, 500],
        [11, 40],
      ]),
    );
    tally.observe(
      reading([
        [10, 530],
        [11, 45],
      ]),
    );
    expect(tally.ticks()).toBe(35);
    expect(tally.processes()).toBe(2);
  });

  it("counts a process that appears after the first reading from zero", () => {
    const tally = new TickTally();
    tally.observe(reading([[10, 500]]));
    tally.observe(
      reading([
        [10, 510],
        [12, 7],
      ]),
    );
    tally.observe(
      reading([
        [10, 512],
        [12, 9],
      ]),
    );
    expect(tally.ticks()).toBe(12 + 9);
  });

  it("keeps what its last reading showed of a process that ended", () => {
    const tally = new TickTally();
    tally.observe(
      reading([
        [10, 500],
        [11, 40],
      ]),
    );
    tally.observe(
      reading([
        [10, 505],
        [11, 52],
      ]),
    );
    tally.observe(reading([[10, 506]]));
    expect(tally.ticks()).toBe(6 + 12);
    expect(tally.processes()).toBe(2);
  });

  it("keeps the old share of a reused pid and counts the new process from zero", () => {
    const tally = new TickTally();
    tally.observe(reading([[10, 500]]));
    tally.observe(reading([[10, 520]]));
    tally.observe(reading([[10, 3]]));
    tally.observe(reading([[10, 8]]));
    expect(tally.ticks()).toBe(20 + 8);
  });

  it("is zero with one reading or none", () => {
    const tally = new TickTally();
    expect(tally.ticks()).toBe(0);
    tally.observe(reading([[10, 500]]));
    expect(tally.ticks()).toBe(0);
  });
});
