import type { Figure } from "./report.js";
import type { BenchScale } from "./scale.js";

/** What every suite gets: the sizes, and the Postgres server its scratch databases go on. */
export interface SuiteContext {
  scale: BenchScale;
  /** URL of the server's `postgres` database; suites create their own databases beside it. */
  serverUrl: string;
  /** True when the server is private to this run, so cluster-wide counters (WAL) are ours alone. */
  privateServer: boolean;
  /** A port range this run may listen on. */
  nextPort(): number;
  log(message: string): void;
  /** Adds a named detail (e.g. a statement profile) to the JSON report. */
  record(key: string, value: unknown): void;
}

export interface Suite {
  name: string;
  run(context: SuiteContext): Promise<Figure[]>;
}
