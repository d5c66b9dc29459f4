import type { AppRouter } from "@parley/api";
import type { TRPCClient } from "@trpc/client";
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
  RespondInput,
  SessionInfo,
  SessionMutation,
  SessionSetInput,
  SessionSetOptions,
  SessionStatus,
  StopResult,
  SubscribeOptions,
} from "./types.js";

/** A Session over the network (docs/behaviour.md#session). Every call is one request. */
export interface ParleySession {
  readonly id: string;
  /**
   * Live persisted mutations of this session. Reconnects by itself and resumes after the last
   * received `event_id`: no gap, no duplicate. Returns the idempotent unsubscribe.
   */
  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options?: SubscribeOptions,
  ): () => void;
  /** Resolves once the prompt is persisted and assigned to a Turn. */
  prompt(input: PromptInput): Promise<PromptResult>;
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
  set(input: SessionSetInput, options?: SessionSetOptions): Promise<{ queued: boolean }>;
  messages(query?: MessagesQuery): Promise<MessagePage>;
  info(): Promise<SessionInfo>;
}

export interface RunOptions {
  /** Makes the prompt idempotent: a retry with the same id joins the same Turn. */
  request_id?: string;
  onInteraction?: InteractionHandler;
}

export function createSessionHandle(trpc: TRPCClient<AppRouter>, session_id: string): ParleySession {
  const target = { session_id };
  const handle: ParleySession = {
    id: session_id,
    subscribe(listener, options) {
      return startTrackedSubscription<SessionMutation>({
        subscribe: (input, handlers) =>
          trpc.session.onMutation.subscribe(
            { ...target, ...input },
            {
              onData: (tracked) => handlers.onData(tracked as { id: string; data: SessionMutation }),
              onError: handlers.onError,
            },
          ),
        listener,
        subscribeOptions: options,
      });
    },
    prompt: (input) =>
      withParleyErrors(() =>
        trpc.session.prompt.mutate({ ...target, ...(typeof input === "string" ? { query: input } : input) }),
      ),
    stop: () => withParleyErrors(() => trpc.session.stop.mutate(target)),
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
    rename: (title) => withParleyErrors(() => trpc.session.rename.mutate({ ...target, title })),
    close: () => withParleyErrors(() => trpc.session.close.mutate(target)),
    respond: (input) => withParleyErrors(() => trpc.session.respond.mutate({ ...target, ...input })),
    interactions: () => withParleyErrors(() => trpc.session.interactions.query(target)),
    status: () => withParleyErrors(() => trpc.session.status.query(target)),
    set: (input, options) =>
      withParleyErrors(() =>
        trpc.session.set.mutate(options === undefined ? { ...target, input } : { ...target, input, options }),
      ),
    messages: (query) => withParleyErrors(() => trpc.session.messages.query({ ...target, ...query })),
    info: () => withParleyErrors(() => trpc.session.get.query(target)),
  };
  return handle;
}
