/**
 * The next free message `sequence` of one session as this process knows it: read once (the
 * session's highest, plus one), then moved past each message this process opens. Another process
 * may append meanwhile; the commit of a message at a taken sequence then fails as a `sequence`
 * conflict, and its writer reads again (`forget`, `reread`).
 */
export class NextSequence {
  readonly #readLast: () => Promise<number>;
  #next: number | undefined;

  constructor(readLast: () => Promise<number>) {
    this.#readLast = readLast;
  }

  /** The next free sequence: known, else read. */
  async peek(): Promise<number> {
    if (this.#next === undefined) {
      const next = (await this.#readLast()) + 1;
      this.#next ??= next;
    }
    return this.#next;
  }

  /**
   * `next` as the caller just read it (the session's highest, plus one) with the session's lock held,
   * so that no write of another process is missing from it: it replaces what was known.
   */
  readUnderLock(next: number): void {
    this.#next = next;
  }

  /** `sequence` is taken (by this process's message): the next one is after it. */
  advancePast(sequence: number): void {
    this.#next = Math.max(this.#next ?? 0, sequence + 1);
  }

  /** Not known any more (a commit found the sequence taken): the next `peek` reads. */
  forget(): void {
    this.#next = undefined;
  }

  /** Reads the next free sequence again, takes it, and returns it. */
  async reread(): Promise<number> {
    const sequence = (await this.#readLast()) + 1;
    this.advancePast(sequence);
    return sequence;
  }
}
