import pg from "pg";
import { clockTicksPerSecond, processTicks } from "./proc-cpu.js";

/**
 * Adds up the CPU ticks of a changing set of processes from repeated readings (pid → ticks so far).
 * A process in the first reading counts from that reading; one that appears later counts from zero
 * (its whole life fell inside the window); one that ends keeps what its last reading showed. A pid
 * whose ticks go down was reused by a new process: the old one's share is kept and the new one
 * counts from zero.
 */
export class TickTally {
  readonly #baseline = new Map<number, number>();
  readonly #last = new Map<number, number>();
  /** Ticks of processes whose pid was reused, finished before the reuse was seen. */
  #retired = 0;
  #started = false;

  observe(reading: ReadonlyMap<number, number>): void {
    for (const [pid, ticks] of reading) {
      const last = this.#last.get(pid);
      if (last === undefined) {
        this.#baseline.set(pid, this.#started ? 0 : ticks);
      } else if (ticks < last) {
        this.#retired += last - (this.#baseline.get(pid) ?? 0);
        this.#baseline.set(pid, 0);
      }
      this.#last.set(pid, ticks);
    }
    this.#started = true;
  }

  /** Ticks spent since the first reading, by every process seen. */
  ticks(): number {
    let total = this.#retired;
    for (const [pid, last] of this.#last) total += last - (this.#baseline.get(pid) ?? 0);
    return total;
  }

  /** How many distinct processes were seen. */
  processes(): number {
    return this.#last.size;
  }
}

/** How often the backends are read during a window: a backend that ends loses at most this much. */
const POLL_MS = 250;

/**
 * CPU of the PostgreSQL backends serving one database, from `/proc/<pid>/stat` of the pids that
 * `pg_stat_activity` lists for it (read over a connection to another database, so the reader is not
 * counted). Backends come and go with the pools, so they are read every 250 ms during the window
 * (`TickTally`). Needs the server on this machine (the bench's private server, or a local one);
 * elsewhere the pids are not ours and the figure is NaN.
 */
export class BackendCpu {
  readonly #client: pg.Client;
  readonly #database: string;
  readonly #tally = new TickTally();
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> = Promise.resolve();
  #local = true;

  private constructor(client: pg.Client, database: string) {
    this.#client = client;
    this.#database = database;
  }

  /** Opens the reader and takes the first reading: the window starts now. */
  static async start(serverUrl: string, database: string): Promise<BackendCpu> {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const cpu = new BackendCpu(client, database);
    await cpu.#read();
    cpu.#timer = setInterval(() => {
      cpu.#reading = cpu.#reading.then(() => cpu.#read());
    }, POLL_MS);
    return cpu;
  }

  async #read(): Promise<void> {
    const result = await this.#client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [this.#database],
    );
    const pids = result.rows.map((row) => row.pid);
    const ticks = processTicks(pids);
    // A backend listed but without a /proc entry here: the server is not on this machine.
    if (pids.length > 0 && ticks.size === 0) this.#local = false;
    this.#tally.observe(ticks);
  }

  /** Ends the window (one last reading) and returns the backends' CPU ms in it. */
  async stop(): Promise<{ cpu_ms: number; backends: number }> {
    clearInterval(this.#timer);
    await this.#reading;
    await this.#read();
    await this.#client.end();
    const cpu_ms = this.#local ? (this.#tally.ticks() * 1000) / clockTicksPerSecond() : Number.NaN;
    return { cpu_ms, backends: this.#tally.processes() };
  }
}
