import type { SessionEvent } from "../../ports/session-store.js";
import type { Interaction, InteractionResult } from "../../schema/interaction.js";
import { interactionResultOf } from "../transitions/interaction-transitions.js";

interface Waiter {
  owner: object;
  tool_call_id: string | undefined;
  settle(result: InteractionResult, interaction: Interaction): void;
}

/**
 * Commits that the tool continues with a `resolved` answer, before it does (fenced by the Turn's
 * epoch). A rejection (e.g. `TurnFencedError`: the Turn is no longer ours) rejects the wait, so the
 * tool's code never runs on in this process.
 */
export type HandOver = (interaction: Interaction) => Promise<void>;

/**
 * Tools of this process waiting on `handle.result`. A waiter is settled only from committed state:
 * by the `part` mutation in which its Interaction became terminal, as the bus delivers it — whether
 * this process or another one committed the answer — or from a stored terminal state when a resumed
 * tool attaches to an Interaction answered earlier. Each waiter settles exactly once; a `resolved`
 * answer reaches a Turn's tool only after its hand-over (`resumed_at`) is committed.
 */
export class InteractionWaiters {
  readonly #waiters = new Map<string, Waiter>();
  /** Told when one of its tools starts waiting (a Turn decides whether it can park). */
  readonly #watchers = new Map<object, () => void>();

  /** `onWait` runs each time a waiter of `owner` is registered, until the returned function is called. */
  watch(owner: object, onWait: () => void): () => void {
    this.#watchers.set(owner, onWait);
    return () => {
      if (this.#watchers.get(owner) === onWait) this.#watchers.delete(owner);
    };
  }

  /** Every Interaction some tool of this process waits for now. */
  waitingInteractionIds(): string[] {
    return [...this.#waiters.keys()];
  }

  /** The distinct tool calls of `owner` that wait for an answer now. */
  waitingTools(owner: object): Set<string> {
    const tools = new Set<string>();
    for (const waiter of this.#waiters.values()) {
      if (waiter.owner === owner && waiter.tool_call_id !== undefined) tools.add(waiter.tool_call_id);
    }
    return tools;
  }

  /** Registers before the Interaction is committed or read, so no terminal event can slip past. */
  wait(
    interaction_id: string,
    owner: object,
    handOver?: HandOver,
    tool_call_id?: string,
  ): Promise<InteractionResult> {
    const registered = new Promise<InteractionResult>((resolve, reject) => {
      this.#waiters.set(interaction_id, {
        owner,
        tool_call_id,
        settle: (result, interaction) => {
          this.#waiters.delete(interaction_id);
          if (!handOver || result.status !== "resolved" || interaction.resumed_at !== undefined) {
            resolve(result);
            return;
          }
          handOver(interaction).then(() => resolve(result), reject);
        },
      });
    });
    this.#watchers.get(owner)?.();
    return registered;
  }

  /** Settles from a stored copy of the Interaction, if it is terminal. */
  settleFrom(interaction: Interaction): void {
    const result = interactionResultOf(interaction);
    if (result) this.#waiters.get(interaction.interaction_id)?.settle(result, interaction);
  }

  observe(event: SessionEvent): void {
    const { mutation } = event;
    if (mutation.variant !== "part" || mutation.part.type !== "tool") return;
    for (const interaction of mutation.part.interactions ?? []) this.settleFrom(interaction);
  }

  /** Forgets the waiter without settling it (its request was never committed). */
  discard(interaction_id: string): void {
    this.#waiters.delete(interaction_id);
  }

  /** The owner (a Turn) was abandoned: its tools must never continue in this process. */
  abandon(owner: object): void {
    for (const [interaction_id, waiter] of this.#waiters) {
      if (waiter.owner === owner) this.#waiters.delete(interaction_id);
    }
  }

  has(interaction_id: string): boolean {
    return this.#waiters.has(interaction_id);
  }
}
