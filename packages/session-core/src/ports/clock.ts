/** Time source, injectable so tests can pin timestamps. Epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Source of the random part of ids (`interaction:<id>`, `question:<id>` …). */
export interface IdSource {
  next(): string;
}

export const systemClock: Clock = { now: () => Date.now() };
