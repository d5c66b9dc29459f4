/*
 * The wire types, each inferred (`z.infer`) from its one schema in the contract
 * (`@parley/session-core/wire`, bundled into the published package so its types stand alone).
 */
import type { SessionMutation } from "@parley/session-core/wire";

export type {
  AdminInboxItem,
  AdminInteractionEvent,
  AdminInteractionsPage,
  AdminInteractionsQuery,
  ApprovalMode,
  ApprovalPayload,
  AssistantMessage,
  AssistantPart,
  CreatedUser,
  CreateSessionInput,
  CreateUserInput,
  FilePart,
  Interaction,
  InteractionFeedEvent,
  InteractionRequest,
  InteractionResponse,
  InteractionResult,
  InteractionStatus,
  JsonValue,
  MessagePage,
  MessagesQuery,
  ModelChoice,
  ModelList,
  PartMutation,
  PromptInput,
  PromptResult,
  Question,
  QuestionAnswer,
  QueuedPrompt,
  RespondInput,
  RevokedTokens,
  RevokeUserInput,
  SessionInfo,
  SessionListPage,
  SessionListQuery,
  SessionMessage,
  SessionMutation,
  SessionSetInput,
  SessionSetOptions,
  SessionSetResult,
  SessionStatus,
  SourcePart,
  StopResult,
  SubscriptionStarted,
  ToolAllowance,
  ToolPart,
  TurnMutation,
  UserMessage,
  UserNames,
  UserNamesInput,
  UserRole,
  WhoAmI,
  WithdrawPromptResult,
  WorkspaceList,
} from "@parley/session-core/wire";

/**
 * A live mutation (DESIGN §10.6) as `session.subscribe({ live: true })` hands it on: a `message`,
 * `part` or `delta` with `live: true`, the `event_id` of the durable mutation it follows and the
 * message `revision` it builds on.
 */
export type LiveSessionMutation = Extract<SessionMutation, { variant: "message" | "part" | "delta" }> & {
  live: true;
};

export interface SubscribeOptions {
  /**
   * Replay every mutation after this `event_id` first (0: the whole history). Omitted: only
   * mutations committed after subscribing.
   */
  after_event_id?: number;
  /**
   * Called each time the server has (re)started the subscription: it listens for live events and
   * every event through `last_event_id` has reached the listener. `last_event_id` is null when it
   * started without a cursor (no `after_event_id` and nothing received yet): only events committed
   * from then on follow, so after a restart like that (a reconnect) re-read what you show.
   * Typical use: subscribe without `after_event_id`, load the snapshot on the first call.
   */
  onStarted?: (started: { last_event_id: number | null }) => void | Promise<void>;
  /**
   * Called each time the subscription resumed after an interruption (a dropped connection, or a
   * server-side failure it re-subscribed after), before that start's `onStarted`: the durable
   * events missed meanwhile have reached the listener, and no live mutation of the new connection
   * has. Live mutations sent while it was down are gone for good (they are never replayed), so
   * drop every live-only state here and re-read what you show (`session.messages()`).
   */
  onReconnect?: () => void | Promise<void>;
  /**
   * Called when the subscription ends for good: a domain error (`ParleyError`, e.g. the session is
   * not visible) or an unrecoverable transport failure. Dropped connections are not errors: the
   * client reconnects and resumes by itself.
   */
  onError?: (error: unknown) => void;
}

/** `session.subscribe`'s options: those of every feed, and whether live mutations are wanted. */
export interface SessionSubscribeOptions extends SubscribeOptions {
  /**
   * `true`: live mutations (`mutation.live === true`, DESIGN §10.6: text and reasoning deltas, a
   * tool's `input-streaming` and `ready`, an assistant message before its first checkpoint) reach
   * the listener too, each right after the durable mutation whose `event_id` it carries. Apply them
   * on top of the durable state and drop them in `onReconnect`: they are never replayed.
   * Default `false`: persisted state only (DESIGN §5), every `event_id` once.
   */
  live?: boolean;
}
