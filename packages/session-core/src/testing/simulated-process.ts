import type { EventBus, EventBusListener } from "../ports/event-bus.js";
import type { SessionStore } from "../ports/session-store.js";

/**
 * What one simulated process sees of the shared store and bus: the same data as every other
 * process until it is killed; from then on each of its store calls and publishes rejects and its
 * subscriptions receive nothing, as for a process whose connections died with it. In-process
 * promises of the killed process keep running (they cannot be stopped), so it behaves like a
 * process frozen mid-flight whose every later I/O fails.
 */
export class ProcessConnections {
  readonly process_id: string;
  readonly store: SessionStore;
  readonly bus: EventBus;
  #alive = true;
  readonly #unsubscribes = new Set<() => void>();

  readonly #latency: (() => Promise<void>) | undefined;

  /**
   * `latency`: awaited before each store call of the process and again before its answer is
   * delivered, so that the calls of processes and sessions interleave as round trips to a
   * database do (the in-memory store otherwise answers on the next microtask).
   */
  constructor(
    process_id: string,
    shared: { store: SessionStore; bus: EventBus },
    latency?: () => Promise<void>,
  ) {
    this.process_id = process_id;
    this.#latency = latency;
    this.store = this.#guardStore(shared.store);
    this.bus = this.#guardBus(shared.bus);
  }

  get isAlive(): boolean {
    return this.#alive;
  }

  /** Cuts every connection of the process. */
  sever(): void {
    this.#alive = false;
    for (const unsubscribe of this.#unsubscribes) unsubscribe();
    this.#unsubscribes.clear();
  }

  #deadError(): Error {
    return new Error(`Process ${this.process_id} was killed`);
  }

  #guardStore(store: SessionStore): SessionStore {
    return new Proxy(store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const latency = this.#latency;
        if (latency === undefined) {
          return (...args: unknown[]) =>
            this.#alive ? value.apply(target, args) : Promise.reject(this.#deadError());
        }
        return async (...args: unknown[]) => {
          await latency();
          if (!this.#alive) throw this.#deadError();
          const result: unknown = await value.apply(target, args);
          await latency();
          // Killed while the answer travelled: the call happened, the process never hears of it.
          if (!this.#alive) throw this.#deadError();
          return result;
        };
      },
    });
  }

  #guardBus(bus: EventBus): EventBus {
    return {
      publish: (events) => (this.#alive ? bus.publish(events) : Promise.reject(this.#deadError())),
      // A dead process sends nothing, and a live mutation has no caller to tell.
      publishLive: (mutation) => {
        if (this.#alive) bus.publishLive(mutation);
      },
      subscribe: (listener: EventBusListener) => {
        if (!this.#alive) return () => {};
        const unsubscribe = bus.subscribe(listener);
        this.#unsubscribes.add(unsubscribe);
        return () => {
          this.#unsubscribes.delete(unsubscribe);
          unsubscribe();
        };
      },
    };
  }
}
