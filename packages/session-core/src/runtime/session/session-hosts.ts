import { ParleyError } from "../../errors.js";
import type { SessionRecord } from "../../schema/session.js";
import type { RuntimeContext } from "../runtime-context.js";
import { SessionHost } from "./session-host.js";

/**
 * This process's hosts of sessions, each kept only while it holds something live.
 *
 * Mechanism — evict on the transition to idle: a host exists while it is used and is dropped the
 * moment it becomes idle (`SessionHost.isIdle`: no Turn running, starting or resumed here, no lease
 * held or being released, no queued prompt or config command, no write in flight, no operation
 * pinning it) and its session has no subscriber here. Facades (`SessionHandle`) never hold a host:
 * each operation pins the host for its duration through `use`, creating it from the stored record
 * when absent, so an evicted session opened again starts from the store (configured and effective
 * modes, closed) exactly as the dropped host would have continued. A host with a queued config
 * command is never idle, so that command is applied at the session's next prompt, never lost. There
 * is at most one host per session at any time: eviction only removes an unpinned idle host, and
 * `use` pins synchronously on lookup.
 *
 * Chosen over a bounded LRU of idle hosts because an idle host caches nothing worth keeping (its
 * next Turn re-reads the session anyway) and memory then follows the live sessions, not the
 * sessions ever touched (`session.list` opens every listed session).
 */
export class SessionHosts {
  readonly #context: RuntimeContext;
  readonly #hosts = new Map<string, SessionHost>();
  /** Subscribers of this process by session; a subscribed session keeps its host. */
  readonly #subscribers = new Map<string, number>();
  /** Each held host's subscription to its session's committed events (`#listen`). */
  readonly #listening = new Map<SessionHost, () => void>();
  #shutDown = false;

  constructor(context: RuntimeContext) {
    this.#context = context;
  }

  get context(): RuntimeContext {
    return this.#context;
  }

  /** How many hosts are held now. */
  get size(): number {
    return this.#hosts.size;
  }

  /** The session's host if one is held; never creates one (for reads of in-process state). */
  peek(session_id: string): SessionHost | undefined {
    return this.#hosts.get(session_id);
  }

  values(): SessionHost[] {
    return [...this.#hosts.values()];
  }

  /** Runs `work` with the session's host pinned (created from `record`, else the store, if absent). */
  async use<T>(
    session_id: string,
    work: (host: SessionHost) => Promise<T>,
    record?: SessionRecord,
  ): Promise<T> {
    const host = await this.acquire(session_id, record);
    try {
      return await work(host);
    } finally {
      this.release(host);
    }
  }

  /** The session's host, pinned until `release`. */
  async acquire(session_id: string, record?: SessionRecord): Promise<SessionHost> {
    const held = this.#pinned(session_id);
    if (held) return held;
    const stored = record ?? (await this.#context.store.getSession(session_id));
    if (!stored) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
    // Another operation may have created it while the record was read.
    const created = this.#pinned(session_id);
    if (created) return created;
    const host = SessionHost.create(this.#context, stored, (idle) => this.#evictIfIdle(idle));
    if (this.#shutDown) void host.shutdown();
    else this.#listening.set(host, this.#listen(host));
    this.#hosts.set(session_id, host);
    host.pin();
    return host;
  }

  release(host: SessionHost): void {
    host.unpin();
  }

  /** Counts a subscriber of the session until the returned function is called (once). */
  subscribed(session_id: string): () => void {
    this.#subscribers.set(session_id, (this.#subscribers.get(session_id) ?? 0) + 1);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const left = (this.#subscribers.get(session_id) ?? 1) - 1;
      if (left > 0) {
        this.#subscribers.set(session_id, left);
        return;
      }
      this.#subscribers.delete(session_id);
      const host = this.#hosts.get(session_id);
      if (host) this.#evictIfIdle(host);
    };
  }

  /** Every host from now on is shut down: it takes no work and starts no Turn, nor hears events. */
  async shutdown(): Promise<void> {
    this.#shutDown = true;
    for (const stop of this.#listening.values()) stop();
    this.#listening.clear();
    await Promise.all(this.values().map((host) => host.shutdown()));
  }

  /**
   * The host hears its session's committed events, whichever process committed them: a tool of
   * its Turn waiting for an answer is woken by the mutation that answered it, and a close elsewhere
   * reaches the Turn. Only held sessions are listened to: a bus reads the events of a notice from
   * another process only for a session someone here listens to, so listening to every session made
   * each instance read every other instance's commits (N − 1 reads per commit with N instances).
   */
  #listen(host: SessionHost): () => void {
    const { waiters } = this.#context;
    return this.#context.bus.subscribe({
      session_id: host.session_id,
      onSessionEvent: (event) => {
        waiters.observe(event);
        const { mutation } = event;
        if (mutation.variant === "session" && mutation.type === "closed") host.observeClosed();
      },
    });
  }

  #pinned(session_id: string): SessionHost | undefined {
    const host = this.#hosts.get(session_id);
    host?.pin();
    return host;
  }

  #evictIfIdle(host: SessionHost): void {
    if (this.#hosts.get(host.session_id) === host && host.isIdle && !this.#subscribers.has(host.session_id)) {
      this.#hosts.delete(host.session_id);
      this.#listening.get(host)?.();
      this.#listening.delete(host);
    }
  }
}
