import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseProcStat, percentOfCore, processTreeTicks, readProcStat, ticksBetween } from "./proc-cpu.js";

describe("parseProcStat", () => {
  it("reads pid, name, parent and CPU ticks, counting fields from the last parenthesis", () => {
    const line =
      "4242 (node (worker) 1) S 4100 4242 4100 0 -1 4194560 9077 0 0 0 1234 567 8 9 20 0 11 0 3599 1259675648 25871 18446744073709551615";
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      comm: "node (worker) 1",
      ppid: 4100,
      utime: 1234,
      stime: 567,
    });
  });

  it("refuses a line that is not a stat line", () => {
    expect(() => parseProcStat("no parentheses here")).toThrow("not a /proc stat line");
    expect(() => parseProcStat("12 (short) S 1 2")).toThrow("field 14 missing");
  });

  it("reads this process: its parent is the parent Node reports", () => {
    expect(readProcStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(readProcStat(2 ** 30)).toBeNull();
  });
});

describe("ticksBetween", () => {
  it("sums each process's growth; a new process counts from zero, an ended one is reported", () => {
    const start = new Map([
      [1, 100],
      [2, 50],
    ]);
    const end = new Map([
      [1, 130],
      [3, 7],
    ]);
    expect(ticksBetween(start, end)).toEqual({ ticks: 37, started: 1, ended: 1 });
  });

  it("counts a pid that reads lower than before as a new process (pid reuse)", () => {
    expect(ticksBetween(new Map([[4, 500]]), new Map([[4, 20]]))).toEqual({
      ticks: 20,
      started: 0,
      ended: 0,
    });
  });
});

describe("percentOfCore", () => {
  it("is CPU seconds over wall seconds, in percent of one core", () => {
    expect(percentOfCore(50, 10, 100)).toBe(5);
    expect(percentOfCore(300, 2, 100)).toBe(150);
    expect(() => percentOfCore(1, 0, 100)).toThrow("over no time");
  });
});

describe("processTreeTicks", () => {
  it("includes a live child of the root", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      const tree = processTreeTicks([process.pid]);
      expect(tree.has(process.pid)).toBe(true);
      expect(tree.has(child.pid ?? -1)).toBe(true);
    } finally {
      child.kill();
    }
  });
});
