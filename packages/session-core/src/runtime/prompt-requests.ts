import type { TurnHandle } from "./session-facade.js";

/** How many request ids a runtime remembers; retries come within moments of the first call. */
export const PROMPT_REQUESTS_KEPT = 1_000;

/**
 * Prompt idempotency (§H): a retried `prompt({ request_id })` gets the first call's handle instead
 * of a second Turn. Kept by the runtime rather than by a session's host so that it outlives the
 * host's eviction, and bounded (the least recently used ids are forgotten first) because every entry
 * holds its Turn's result.
 */
export class PromptRequests {
  readonly #capacity: number;
  readonly #handles = new Map<string, Promise<TurnHandle>>();

  constructor(capacity = PROMPT_REQUESTS_KEPT) {
    this.#capacity = capacity;
  }

  get(session_id: string, request_id: string): Promise<TurnHandle> | undefined {
    const key = keyOf(session_id, request_id);
    const handle = this.#handles.get(key);
    if (handle) {
      this.#handles.delete(key);
      this.#handles.set(key, handle);
    }
    return handle;
  }

  remember(session_id: string, request_id: string, handle: Promise<TurnHandle>): void {
    this.#handles.set(keyOf(session_id, request_id), handle);
    if (this.#handles.size > this.#capacity) {
      const oldest = this.#handles.keys().next().value;
      if (oldest !== undefined) this.#handles.delete(oldest);
    }
  }

  /** A prompt that was never persisted: a retry must be able to try again. */
  forget(session_id: string, request_id: string, handle: Promise<TurnHandle>): void {
    const key = keyOf(session_id, request_id);
    if (this.#handles.get(key) === handle) this.#handles.delete(key);
  }
}

function keyOf(session_id: string, request_id: string): string {
  return JSON.stringify([session_id, request_id]);
}
