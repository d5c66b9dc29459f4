interface Bucket {
  tokens: number;
  updated_at: number;
}

/**
 * A token bucket per key (per API token): `capacity` calls at once, refilled evenly over
 * `window_ms`. In memory, per instance.
 */
export class RateLimiter {
  readonly #capacity: number;
  readonly #refill_per_ms: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: { capacity: number; window_ms: number; now?: () => number }) {
    this.#capacity = options.capacity;
    this.#refill_per_ms = options.capacity / Math.max(1, options.window_ms);
    this.#now = options.now ?? Date.now;
  }

  /** Takes one call from the key's bucket; false when it is empty (the call is refused). */
  take(key: string): boolean {
    if (this.#capacity <= 0) return true;
    const now = this.#now();
    const bucket = this.#buckets.get(key);
    const tokens =
      bucket === undefined
        ? this.#capacity
        : Math.min(this.#capacity, bucket.tokens + (now - bucket.updated_at) * this.#refill_per_ms);
    if (tokens < 1) {
      this.#buckets.set(key, { tokens, updated_at: now });
      return false;
    }
    this.#buckets.set(key, { tokens: tokens - 1, updated_at: now });
    if (this.#buckets.size > 100_000) this.#dropFull(now);
    return true;
  }

  /** Forgets buckets that have refilled completely (they behave like new ones). */
  #dropFull(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updated_at) * this.#refill_per_ms >= this.#capacity) {
        this.#buckets.delete(key);
      }
    }
  }
}
