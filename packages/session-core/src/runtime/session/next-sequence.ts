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
   * Reads it now unless known, beside other work (a prompt reads it while it takes the session's
   * lock), so that the append that follows need not wait for the read. Never rejects: after a
   * failed read, the append reads again (and reports its own failure).
   */
  async prime(): Promise<void> {
    await this.peek().catch(() => undefined);
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
