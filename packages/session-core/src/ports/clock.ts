/** Time source, injectable so tests can pin timestamps. Epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Source of the random part of ids (`interaction:<id>`, `question:<id>` …). */
export interface IdSource {
  next(): string;
}

export const systemClock: Clock = { now: () => Date.now() };

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";

/** Random bytes drawn from Web Crypto at once, then handed out in slices (one call per pool, not per id). */
const POOL_BYTES = 4096;

/**
 * A nanoid-like id source over `crypto.getRandomValues` (Web Crypto, present in Node ≥ 20 and
 * browsers), so session-core needs no Node import. 16 characters of 64 symbols = 96 bits. The bytes
 * come from a pool refilled `POOL_BYTES` at a time, as nanoid does: a call into Web Crypto per id
 * cost more than the rest of the id (a Turn mints one per mutation).
 */
export function createRandomIdSource(length = 16): IdSource {
  const pool = new Uint8Array(Math.max(POOL_BYTES, length));
  let offset = pool.length;
  return {
    next() {
      if (offset + length > pool.length) {
        globalThis.crypto.getRandomValues(pool);
        offset = 0;
      }
      let id = "";
      for (let index = offset; index < offset + length; index++) id += ALPHABET[(pool[index] ?? 0) & 63];
      offset += length;
      return id;
    },
  };
}
