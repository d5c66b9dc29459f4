import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MachineInfo } from "./machine.js";
import type { Distribution } from "./stats.js";

/**
 * One measured figure. A latency is a distribution (`p50`/`p99` over `n` runs); a rate or a size is
 * a single `value`. `floor` names the raw-floor figure of the same run it is compared with, and
 * `ratio_p50` is this figure's p50 over the floor's p50 (for rates: floor rate over this rate, so
 * that a ratio above 1 always means "slower than the floor").
 */
export interface Figure {
  name: string;
  unit: string;
  n: number;
  p50?: number;
  p99?: number;
  mean?: number;
  max?: number;
  value?: number;
  floor?: string;
  ratio_p50?: number;
  note?: string;
}

export interface BenchReport {
  started_at: string;
  finished_at: string;
  scale: string;
  machine: MachineInfo;
  figures: Figure[];
  /** Supporting detail: statement profiles, seed sizes. */
  details: Record<string, unknown>;
  /** Figures whose measurement failed, with the reason: never silently dropped. */
  failures: { suite: string; error: string }[];
}

export function latencyFigure(name: string, distribution: Distribution, extra: Partial<Figure> = {}): Figure {
  return {
    name,
    unit: "ms",
    n: distribution.n,
    p50: distribution.p50,
    p99: distribution.p99,
    mean: distribution.mean,
    max: distribution.max,
    ...extra,
  };
}

export function valueFigure(
  name: string,
  unit: string,
  value: number,
  n: number,
  extra: Partial<Figure> = {},
): Figure {
  return { name, unit, n, value, ...extra };
}

/** Fills `ratio_p50` of every figure that names a floor present in the same list. */
export function applyFloors(figures: Figure[]): Figure[] {
  const byName = new Map(figures.map((figure) => [figure.name, figure]));
  return figures.map((figure) => {
    const floor = figure.floor ? byName.get(figure.floor) : undefined;
    if (!floor) return figure;
    if (figure.p50 !== undefined && floor.p50 !== undefined && floor.p50 > 0) {
      return { ...figure, ratio_p50: figure.p50 / floor.p50 };
    }
    if (figure.value !== undefined && floor.value !== undefined && figure.value > 0) {
      return { ...figure, ratio_p50: floor.value / figure.value };
    }
    return figure;
  });
}

function format(value: number | undefined): string {
  if (value === undefined) return "";
  if (Math.abs(value) >= 1000) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function renderTable(figures: Figure[]): string {
  const header = ["figure", "unit", "n", "p50", "p99", "value", "floor", "× floor"];
  const rows = figures.map((figure) => [
    figure.name,
    figure.unit,
    String(figure.n),
    format(figure.p50),
    format(figure.p99),
    format(figure.value),
    figure.floor ?? "",
    figure.ratio_p50 === undefined ? "" : `${figure.ratio_p50.toFixed(1)}×`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  return [line(header), widths.map((width) => "─".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

/** Where every run's report goes; only `latest.json` of the reference machine is committed. */
const RESULTS_DIR = join(import.meta.dirname, "..", "results");

/**
 * Writes `bench/results/<timestamp><suffix>.json` and `bench/results/latest<suffix>.json` (the load
 * tests use the suffixes `-load` and `-load-buses`); returns the first path.
 */
export function writeReport(report: BenchReport, suffix = ""): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = report.started_at.replace(/[:.]/g, "-");
  const path = join(RESULTS_DIR, `${stamp}${suffix}.json`);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(path, text);
  writeFileSync(join(RESULTS_DIR, `latest${suffix}.json`), text);
  return path;
}
