import type { ParleyClient } from "@parley/sdk";
import { isLiveMutation, type SessionMutation, type ToolPart } from "@parley/session-core";
import { now, WAIT_MS, within } from "./stats.js";

interface Waiter {
  matches(mutation: SessionMutation): boolean;
  resolve(at: number, mutation: SessionMutation): void;
}

/**
 * Follows one session's mutations at a client: remembers every event id (to check there is no gap
 * or duplicate) and lets a caller wait, with the arrival time, for the first mutation that matches.
 */
export class SessionWatch {
  readonly event_ids: number[] = [];
  readonly mutations: SessionMutation[] = [];
  #waiters: Waiter[] = [];

  readonly onMutation = (mutation: SessionMutation): void => {
    const at = now();
    // A live mutation (DESIGN §10.6) repeats the id of the durable one it follows.
    if (!isLiveMutation(mutation)) this.event_ids.push(mutation.event_id);
    this.mutations.push(mutation);
    const ready = this.#waiters.filter((waiter) => waiter.matches(mutation));
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve(at, mutation);
  };

  /** Resolves with the arrival time of the first mutation (already seen or later) that matches. */
  waitFor(
    matches: (mutation: SessionMutation) => boolean,
  ): Promise<{ at: number; mutation: SessionMutation }> {
    const arrived = new Promise<{ at: number; mutation: SessionMutation }>((resolve) => {
      this.#waiters.push({ matches, resolve: (at, mutation) => resolve({ at, mutation }) });
    });
    const bounded = within(arrived, WAIT_MS, "a mutation");
    // Callers create several waits up front and await them in turn; a later one timing out while an
    // earlier one is awaited must fail the await, not crash the process as an unhandled rejection.
    bounded.catch(() => undefined);
    return bounded;
  }

  /** Waits for a tool part of `tool_name` to reach `state`, after the mutations seen so far. */
  waitForToolState(tool_name: string, state: string) {
    return this.waitFor((mutation) =>
      toolPartsOf(mutation).some((part) => part.tool_name === tool_name && part.state === state),
    );
  }

  waitForTurnFinish() {
    return this.waitFor((mutation) => mutation.variant === "turn" && mutation.type === "finish");
  }

  /** True when the ids seen are 1, 2, 3 … with none missing and none repeated. */
  isGapFree(): boolean {
    return this.event_ids.every((id, index) => id === (this.event_ids[0] ?? 1) + index);
  }
}

/**
 * The tool parts a mutation publishes: its `part`, or those of its whole assistant message (the
 * checkpoint that creates a message publishes it whole, DESIGN §10.6).
 */
export function toolPartsOf(mutation: SessionMutation): ToolPart[] {
  if (mutation.variant === "part") return mutation.part.type === "tool" ? [mutation.part] : [];
  if (mutation.variant === "message" && mutation.message.type === "assistant") {
    return mutation.message.parts.filter((part): part is ToolPart => part.type === "tool");
  }
  return [];
}

/** The pending interaction id of a mutation that publishes a `waiting-user` tool part. */
export function pendingInteractionId(mutation: SessionMutation): string {
  const pending = toolPartsOf(mutation)
    .flatMap((part) => part.interactions ?? [])
    .find((interaction) => interaction.status === "pending");
  if (!pending) throw new Error("the mutation has no pending interaction");
  return pending.interaction_id;
}

export const APPROVE = {
  type: "approval",
  outcome: "resolved",
  payload: { decision: "approved" },
} as const;

/** A new session named `title`, followed from its first event by a `SessionWatch`. */
export async function watchNewSession(client: ParleyClient, title: string) {
  const session = await client.sessions.create({ title });
  const watch = new SessionWatch();
  const unsubscribe = session.subscribe(watch.onMutation, { after_event_id: 0 });
  return { session, watch, unsubscribe };
}
