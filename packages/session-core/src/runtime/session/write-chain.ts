/**
 * A session's writes in this process, one after another (`SessionWriter`'s chain): each runs after
 * every write queued before it, whether that one succeeded or failed.
 */
export class WriteChain {
  readonly #onIdle: (() => void) | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #inFlight = 0;

  /** `onIdle`: called each time the last queued write settles. */
  constructor(onIdle?: () => void) {
    this.#onIdle = onIdle;
  }

  /** True when no write is queued or running. */
  get isIdle(): boolean {
    return this.#inFlight === 0;
  }

  /** Settles once every write queued so far has settled (later ones may still run: see `isIdle`). */
  settled(): Promise<void> {
    return this.#tail.then(() => undefined);
  }

  /** Runs `work` after every write queued before it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight += 1;
    const run = this.#tail.then(work, work);
    const settled = () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#onIdle?.();
    };
    this.#tail = run.then(settled, settled);
    return run;
  }
}
