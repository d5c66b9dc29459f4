import type {
  InteractionRequest,
  InteractionResponse,
  SessionMutation,
  TurnMutation,
} from "@parley/session-core/wire";
import { toParleyError } from "./parley-error.js";
import type { SubscribeOptions } from "./types.js";

/**
 * The Interactions a mutation publishes: those of its tool `part`, or of every tool part of its
 * whole assistant message (the checkpoint that creates a message publishes it whole, DESIGN §10.6).
 */
function interactionsIn(mutation: SessionMutation) {
  if (mutation.variant === "part")
    return mutation.part.type === "tool" ? (mutation.part.interactions ?? []) : [];
  if (mutation.variant !== "message" || mutation.message.type !== "assistant") return [];
  return mutation.message.parts.flatMap((part) => (part.type === "tool" ? (part.interactions ?? []) : []));
}

/** How a Turn ended: its `turn` finish mutation. */
export interface TurnOutcome {
  turn_id: string;
  status: "completed" | "failed" | "stopped";
  /** The Turn's final assistant text ("" when it produced none). */
  text: string;
  error?: string;
}

/**
 * Answers an Interaction the Turn raised. The returned response (if any) is sent with `respond`;
 * returning nothing leaves the Interaction pending for someone else (the web app, the inbox).
 */
export type InteractionHandler = (
  interaction: InteractionRequest,
) => InteractionResponse | undefined | Promise<InteractionResponse | undefined>;

export interface WaitForTurnOptions {
  onInteraction?: InteractionHandler;
}

/** What the waiter needs from a session handle. */
export interface TurnWaiterSession {
  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options?: SubscribeOptions,
  ): () => void;
  interactions(): Promise<InteractionRequest[]>;
  respond(input: { interaction_id: string; response: InteractionResponse }): Promise<unknown>;
}

function isFinishOf(turn_id: string, mutation: SessionMutation): mutation is TurnMutation {
  return mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id;
}

function outcomeOf(finish: TurnMutation): TurnOutcome {
  const status = finish.status === "running" ? "failed" : finish.status;
  return {
    turn_id: finish.turn_id,
    status,
    text: finish.text ?? "",
    ...(finish.error === undefined ? {} : { error: finish.error }),
  };
}

/**
 * Resolves when Turn `turn_id` finishes. It reads the session's mutation log from the start
 * (`after_event_id: 0`), so a Turn that already finished resolves at once and a Turn that starts
 * while the subscription opens cannot be missed; the subscription resumes by itself after a dropped
 * connection, so neither can its finish. It rejects only when the subscription ends for good (a
 * `ParleyError` such as `session_not_found`) or when answering an Interaction fails.
 *
 * Interactions: a replayed log shows every Interaction pending at some point, including ones
 * answered since. Before calling the handler the waiter asks the server which are pending now, so
 * the handler sees each still-pending Interaction of this Turn once.
 */
export function waitForTurn(
  session: TurnWaiterSession,
  turn_id: string,
  options: WaitForTurnOptions = {},
): Promise<TurnOutcome> {
  return new Promise<TurnOutcome>((resolve, reject) => {
    let settled = false;
    const offered = new Set<string>();
    let unsubscribe: (() => void) | null = null;
    let finishedBeforeSubscribeReturned = false;

    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      if (unsubscribe === null) finishedBeforeSubscribeReturned = true;
      else unsubscribe();
      action();
    };

    const offer = async (request: InteractionRequest, handler: InteractionHandler) => {
      try {
        const pending = await session.interactions();
        if (settled || !pending.some((item) => item.interaction_id === request.interaction_id)) return;
        const response = await handler(request);
        if (response === undefined || settled) return;
        await session.respond({ interaction_id: request.interaction_id, response });
      } catch (error) {
        settle(() => reject(toParleyError(error)));
      }
    };

    const listener = (mutation: SessionMutation) => {
      if (isFinishOf(turn_id, mutation)) {
        settle(() => resolve(outcomeOf(mutation)));
        return;
      }
      const handler = options.onInteraction;
      if (handler === undefined) return;
      for (const interaction of interactionsIn(mutation)) {
        if (interaction.status !== "pending" || interaction.request.turn_id !== turn_id) continue;
        if (offered.has(interaction.interaction_id)) continue;
        offered.add(interaction.interaction_id);
        // Not awaited: the handler may wait for a person; later mutations (the finish) keep flowing.
        void offer(interaction.request, handler);
      }
    };

    const stop = session.subscribe(listener, {
      after_event_id: 0,
      onError: (error) => settle(() => reject(toParleyError(error))),
    });
    if (finishedBeforeSubscribeReturned) stop();
    else unsubscribe = stop;
  });
}
