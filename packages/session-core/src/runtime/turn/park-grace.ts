/**
 * The grace before a waiting Turn parks (docs/behaviour.md#durability). A Turn whose open tools all
 * wait for a person stays held, lease and all, for `grace_ms` first: an answer that comes at once (a
 * service approving through the SDK, a person watching the chat) then reaches the tool in the
 * process that runs it, in one commit, with no take-over. After the grace it parks and holds nothing.
 *
 * What waits held is bounded whatever waits in all: at most `capacity` Turns of a process are in
 * their grace at once (each holds its session's lock and its host); any other parks at once.
 */
export class ParkGrace {
  readonly grace_ms: number;
  readonly #capacity: number;
  readonly #holding = new Set<object>();

  constructor(grace_ms: number, capacity: number = PARK_GRACE_CAPACITY) {
    this.grace_ms = grace_ms;
    this.#capacity = capacity;
  }

  /** Whether a Turn about to park may wait held instead (the grace is on and there is room). */
  get hasRoom(): boolean {
    return this.grace_ms > 0 && this.#holding.size < this.#capacity;
  }

  /**
   * `turn` waits held from now; `over` runs when the grace is over, unless the returned function
   * (the Turn ended first) was called before.
   */
  hold(turn: object, over: () => void): () => void {
    this.#holding.add(turn);
    const timer = setTimeout(() => {
      this.#holding.delete(turn);
      over();
    }, this.grace_ms);
    // A server's sockets keep its process alive; a Turn in its grace must not keep a test's.
    (timer as { unref?: () => void }).unref?.();
    return () => {
      clearTimeout(timer);
      this.#holding.delete(turn);
    };
  }

  /** How many Turns wait held now. */
  get size(): number {
    return this.#holding.size;
  }
}

/** `PARLEY_PARK_GRACE_MS`'s default: long enough for an answer sent as soon as the request is seen. */
export const DEFAULT_PARK_GRACE_MS = 500;

/** At most this many Turns of one process in their grace at once. */
export const PARK_GRACE_CAPACITY = 256;
