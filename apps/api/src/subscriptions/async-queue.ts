/**
 * An unbounded push queue read by one async iterator. Buffers what arrives while the reader is
 * busy (e.g. replaying from the database), so nothing published meanwhile is lost.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly buffered: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting !== null) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: item, done: false });
      return;
    }
    this.buffered.push(item);
  }

  /** Ends iteration once the buffer is drained (or at once, for a waiting reader). */
  close(): void {
    this.closed = true;
    if (this.waiting !== null && this.buffered.length === 0) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.buffered.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.close();
        this.buffered.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
