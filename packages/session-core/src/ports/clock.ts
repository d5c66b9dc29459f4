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

/**
 * A nanoid-like id source over `crypto.getRandomValues` (Web Crypto, present in Node ≥ 20 and
 * browsers), so session-core needs no Node import. 16 characters of 64 symbols = 96 bits.
 */
export function createRandomIdSource(length = 16): IdSource {
  return {
    next() {
      const bytes = new Uint8Array(length);
      globalThis.crypto.getRandomValues(bytes);
      let id = "";
      for (const byte of bytes) id += ALPHABET[byte & 63];
      return id;
    },
  };
}
