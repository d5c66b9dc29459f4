import { createHash } from "node:crypto";
import type { AuthenticatedToken, AuthStore } from "@parley/session-core";

interface CacheEntry {
  /** The lookup in flight, so concurrent requests with one token make one query. */
  lookup: Promise<AuthenticatedToken | null>;
  settled_at: number | null;
  /** The user it named, once settled. */
  user_id: string | null;
}

/** Bounds memory under a flood of distinct bad tokens: the oldest entries go first. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Token → identity with a brief cache in front of the store, negative answers included: a client
 * repeating a request (or an attacker repeating a bad token) costs one lookup per `ttl_ms`, not one
 * per request. `ttl_ms` is also how long another instance may still accept a token after it was
 * revoked there (about a second); this instance forgets the user's entries at once
 * (`forgetUser`). Expiry is checked on every call against the cached `expires_at`.
 */
export class TokenAuthenticator {
  readonly #store: Pick<AuthStore, "authenticate">;
  readonly #ttl_ms: number;
  readonly #max_entries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, CacheEntry>();

  constructor(
    store: Pick<AuthStore, "authenticate">,
    options: { ttl_ms: number; max_entries?: number; now?: () => number },
  ) {
    this.#store = store;
    this.#ttl_ms = options.ttl_ms;
    this.#max_entries = options.max_entries ?? DEFAULT_MAX_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  /** The token's identity, or null when it is unknown, revoked or expired. */
  async authenticate(token: string): Promise<AuthenticatedToken | null> {
    const key = digest(token);
    const now = this.#now();
    let entry = this.#entries.get(key);
    if (entry !== undefined && entry.settled_at !== null && now - entry.settled_at >= this.#ttl_ms) {
      this.#entries.delete(key);
      entry = undefined;
    }
    if (entry === undefined) entry = this.#lookUp(key, token);
    const found = await entry.lookup;
    if (found === null) return null;
    return found.expires_at !== null && found.expires_at <= this.#now() ? null : found;
  }

  /** Drops what is cached for the user (after its tokens were revoked here). */
  forgetUser(user_id: string): void {
    for (const [key, entry] of this.#entries) {
      // A lookup still in flight may have read the token before the revocation: drop it too.
      if (entry.settled_at === null || entry.user_id === user_id) this.#entries.delete(key);
    }
  }

  #lookUp(key: string, token: string): CacheEntry {
    if (this.#ttl_ms <= 0) {
      return { lookup: this.#store.authenticate(token), settled_at: null, user_id: null };
    }
    while (this.#entries.size >= this.#max_entries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    const entry: CacheEntry = { lookup: this.#store.authenticate(token), settled_at: null, user_id: null };
    this.#entries.set(key, entry);
    entry.lookup.then(
      (found) => {
        entry.settled_at = this.#now();
        entry.user_id = found?.user.user_id ?? null;
      },
      () => {
        // A failed lookup (database unreachable) is not an answer: the next request asks again.
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return entry;
  }
}

/** Cache keys are digests, so the cache never holds a usable token. */
function digest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
