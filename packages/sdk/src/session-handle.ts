import { isLiveMutation } from "@parley/session-core/wire";
import type { ContractClient } from "./contract-client.js";
import { withParleyErrors } from "./parley-error.js";
import { startTrackedSubscription } from "./subscription.js";
import {
  type InteractionHandler,
  type TurnOutcome,
  type WaitForTurnOptions,
  waitForTurn,
} from "./turn-waiter.js";
import type {
  InteractionRequest,
  InteractionResult,
  MessagePage,
  MessagesQuery,
  PromptInput,
  PromptResult,
  QueuedPrompt,
  RespondInput,
  SessionInfo,
  SessionMutation,
  SessionSetInput,
  SessionSetOptions,
  SessionSetResult,
  SessionStatus,
  SessionSubscribeOptions,
  StopResult,
  WithdrawPromptResult,
} from "./types.js";

/** A Session over the network (docs/behaviour.md#session). Every call is one request. */
export interface ParleySession {
  readonly id: string;
  /**
   * The persisted mutations of this session as they are committed. Reconnects by itself and
   * resumes after the last received durable `event_id`: no gap, no duplicate. With `live: true`
   * also its live mutations (`mutation.live === true`), which `onReconnect` says to drop. Returns
   * the idempotent unsubscribe.
   */
  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options?: SessionSubscribeOptions,
  ): () => void;
  /** Resolves once the prompt is persisted and assigned to a Turn. */
  prompt(input: PromptInput): Promise<PromptResult>;
  /**
   * The prompts queued behind the running or waiting Turn they joined, in order. A `session`
   * mutation of type `queue` says when the list changed.
   */
  queuedPrompts(): Promise<QueuedPrompt[]>;
  /**
   * Withdraws a queued prompt by the `request_id` it was sent with. `withdrawn`: it never runs (a
   * retry answers the same); `applied`: its Turn took it first; `starts_turn`: it started its Turn.
   */
  withdrawPrompt(request_id: string): Promise<WithdrawPromptResult>;
  /**
   * Sends the prompt and resolves when its Turn finishes (its `turn` finish mutation). `onInteraction` is
   * called for each Interaction the Turn raises; the response it returns is sent with `respond`.
   * Survives reconnects; rejects with a `ParleyError` if the prompt or an answer is refused.
   */
  run(query: string, options?: RunOptions): Promise<TurnOutcome>;
  /** Like `run` for a Turn already started: resolves at once if it finished earlier. */
  waitForTurn(turn_id: string, options?: WaitForTurnOptions): Promise<TurnOutcome>;
  stop(): Promise<StopResult>;
  /** Sets the title (trimmed, 1–200 characters; else `invalid_input`); prompts never retitle it after. */
  rename(title: string): Promise<SessionInfo>;
  close(): Promise<{ closed: true }>;
  /** Answers a pending interaction; the server records the caller as `responded_by`. */
  respond(input: RespondInput): Promise<InteractionResult>;
  /** The bare requests of the pending interactions, in occurrence order. */
  interactions(): Promise<InteractionRequest[]>;
  status(): Promise<SessionStatus>;
  set(input: SessionSetInput, options?: SessionSetOptions): Promise<SessionSetResult>;
  messages(query?: MessagesQuery): Promise<MessagePage>;
  info(): Promise<SessionInfo>;
}

export interface RunOptions {
  /** Makes the prompt idempotent: a retry with the same id joins the same Turn. */
  request_id?: string;
  onInteraction?: InteractionHandler;
}

export function createSessionHandle(trpc: ContractClient, session_id: string): ParleySession {
  const target = { session_id };
  const handle: ParleySession = {
    id: session_id,
    subscribe(listener, options) {
      return startTrackedSubscription<SessionMutation>({
        subscribe: (input, handlers) =>
          trpc.subscribe("session.onMutation", { ...target, ...input }, handlers),
        listener,
        subscribeOptions: options,
        isLive: isLiveMutation,
        deliverLive: options?.live === true,
      });
    },
    prompt: (input) =>
      withParleyErrors(() =>
        trpc.mutate("session.prompt", {
          ...target,
          ...(typeof input === "string" ? { query: input } : input),
        }),
      ),
    queuedPrompts: async () =>
      (await withParleyErrors(() => trpc.query("session.queuedPrompts", target))).items,
    withdrawPrompt: (request_id) =>
      withParleyErrors(() => trpc.mutate("session.withdrawPrompt", { ...target, request_id })),
    stop: () => withParleyErrors(() => trpc.mutate("session.stop", target)),
    async run(query, options = {}) {
      const { turn_id } = await handle.prompt(
        options.request_id === undefined ? { query } : { query, request_id: options.request_id },
      );
      return handle.waitForTurn(
        turn_id,
        options.onInteraction === undefined ? {} : { onInteraction: options.onInteraction },
      );
    },
    waitForTurn: (turn_id, options) => waitForTurn(handle, turn_id, options),
    rename: (title) => withParleyErrors(() => trpc.mutate("session.rename", { ...target, title })),
    close: () => withParleyErrors(() => trpc.mutate("session.close", target)),
    respond: (input) => withParleyErrors(() => trpc.mutate("session.respond", { ...target, ...input })),
    interactions: () => withParleyErrors(() => trpc.query("session.interactions", target)),
    status: () => withParleyErrors(() => trpc.query("session.status", target)),
    set: (input, options) =>
      withParleyErrors(() =>
        trpc.mutate(
          "session.set",
          options === undefined ? { ...target, input } : { ...target, input, options },
        ),
      ),
    messages: (query) => withParleyErrors(() => trpc.query("session.messages", { ...target, ...query })),
    info: () => withParleyErrors(() => trpc.query("session.get", target)),
  };
  return handle;
}
