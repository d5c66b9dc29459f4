import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The fields of `/proc/<pid>/stat` the bench reads (proc(5)); times are in clock ticks. */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  utime: number;
  stime: number;
}

/**
 * Parses one `/proc/<pid>/stat` line. The command name sits in parentheses and may itself hold
 * spaces and parentheses ("(node (worker))"), so the fields after it are counted from the last `)`.
 */
export function parseProcStat(line: string): ProcStat {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
  // After ") ": state(3) ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15).
  const rest = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const field = (number: number) => {
    const value = Number(rest[number - 3]);
    if (!Number.isFinite(value))
      throw new Error(`/proc stat field ${number} missing in: ${line.slice(0, 80)}`);
    return value;
  };
  return {
    pid: Number(line.slice(0, open).trim()),
    comm: line.slice(open + 1, close),
    ppid: field(4),
    utime: field(14),
    stime: field(15),
  };
}

/** `/proc/<pid>/stat` of a live process, or null once it has gone. */
export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** CPU ticks (user + system, every thread) of each of `pids` that is still alive. */
export function processTicks(pids: Iterable<number>): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const stat = readProcStat(pid);
    if (stat) ticks.set(pid, stat.utime + stat.stime);
  }
  return ticks;
}

/** Every live process on the machine (one pass over /proc). */
function allProcesses(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/**
 * CPU ticks (user + system, every thread) of `roots` and all their live descendants, by pid. A
 * process's own line already sums its threads; children are found by their `ppid`.
 */
export function processTreeTicks(roots: readonly number[]): Map<number, number> {
  const byParent = new Map<number, ProcStat[]>();
  const byPid = new Map<number, ProcStat>();
  for (const stat of allProcesses()) {
    byPid.set(stat.pid, stat);
    byParent.set(stat.ppid, [...(byParent.get(stat.ppid) ?? []), stat]);
  }
  const ticks = new Map<number, number>();
  const visit = (stat: ProcStat) => {
    if (ticks.has(stat.pid)) return;
    ticks.set(stat.pid, stat.utime + stat.stime);
    for (const child of byParent.get(stat.pid) ?? []) visit(child);
  };
  for (const pid of roots) {
    const stat = byPid.get(pid);
    if (stat) visit(stat);
  }
  return ticks;
}

/**
 * Ticks spent between two readings of the same processes. A process that appeared in between counts
 * from zero; one that ended in between is missing from `end` and its last share is lost (at rest
 * nothing should start or end; `ended` says how many did).
 */
export function ticksBetween(
  start: ReadonlyMap<number, number>,
  end: ReadonlyMap<number, number>,
): { ticks: number; started: number; ended: number } {
  let ticks = 0;
  let started = 0;
  for (const [pid, after] of end) {
    const before = start.get(pid);
    if (before === undefined) started += 1;
    // A pid reused by a new process reads lower than before: count it as new.
    ticks += before === undefined || after < before ? after : after - before;
  }
  const ended = [...start.keys()].filter((pid) => !end.has(pid)).length;
  return { ticks, started, ended };
}

/** Percent of one core: `ticks` of CPU over `seconds` of wall time. */
export function percentOfCore(ticks: number, seconds: number, ticksPerSecond: number): number {
  if (seconds <= 0) throw new Error("percentOfCore over no time");
  return (ticks / ticksPerSecond / seconds) * 100;
}

/** The kernel's clock ticks per second (`getconf CLK_TCK`; 100 on every Linux the bench runs on). */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

/** Resident set size of a live process in MiB (`VmRSS` of `/proc/<pid>/status`), NaN once gone. */
export function residentMib(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}
