import type { SessionEvent } from "../../ports/session-store.js";
import type { Interaction, InteractionResult } from "../../schema/interaction.js";
import { interactionResultOf } from "../transitions/interaction-transitions.js";

interface Waiter {
  owner: object;
  tool_call_id: string | undefined;
  /** How the answer is handed over to the tool (none: it goes on with the answer as it is). */
  handOver: HandOver | undefined;
  /** Settled only once this settled (`holdUntil`). */
  hold: Promise<void> | undefined;
  settle(result: InteractionResult, interaction: Interaction): void;
}

/**
 * How a Turn's tool is handed a `resolved` answer: `commit` records that it continues (`resumed_at`)
 * before it does, fenced by the Turn's `epoch`. A rejection (e.g. `TurnFencedError`: the Turn is no
 * longer ours) rejects the wait, so the tool's code never runs on in this process. An answer
 * committed in this process may record it itself, under the same `epoch` (`handOverOf`): then
 * there is nothing left to commit.
 */
export interface HandOver {
  epoch: number;
  /** The message that holds the tool's part. */
  message_id: string;
  commit(interaction: Interaction): Promise<void>;
}

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
      const waiter: Waiter = {
        owner,
        tool_call_id,
        handOver,
        hold: undefined,
        settle: (result, interaction) => {
          this.#waiters.delete(interaction_id);
          const proceed = () => {
            if (!handOver || result.status !== "resolved" || interaction.resumed_at !== undefined) {
              resolve(result);
              return;
            }
            handOver.commit(interaction).then(() => resolve(result), reject);
          };
          if (waiter.hold === undefined) proceed();
          else void waiter.hold.then(proceed);
        },
      };
      this.#waiters.set(interaction_id, waiter);
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

  /**
   * How a tool of this process waiting on `interaction_id` is handed its answer: under which epoch,
   * in which message (undefined: none waits here, or its answer needs no hand-over). An answer
   * committed in this process under that epoch, with `resumed_at`, reaches the tool with no commit
   * of its own.
   */
  handOverOf(interaction_id: string): Pick<HandOver, "epoch" | "message_id"> | undefined {
    return this.#waiters.get(interaction_id)?.handOver;
  }

  /**
   * The tool waiting on `interaction_id` here (if any) goes on only once `until` settled: an answer's
   * grant of an allowance lands before the Turn it answers reaches its next Step checkpoint.
   */
  holdUntil(interaction_id: string, until: Promise<void>): void {
    const waiter = this.#waiters.get(interaction_id);
    if (waiter) waiter.hold = until;
  }

  has(interaction_id: string): boolean {
    return this.#waiters.has(interaction_id);
  }
}
