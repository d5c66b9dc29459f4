import type {
  AdminInboxItem,
  AdminInteractionEvent,
  AdminInteractionsPage,
  AdminInteractionsQuery,
  InteractionResult,
  MessagePage,
  ModelChoice,
  QueuedPrompt,
  RespondInput,
  SessionInfo,
  SessionListPage,
  SessionMutation,
  SessionSetInput,
  SessionStatus,
  StopResult,
  WhoAmI,
  WithdrawPromptResult,
} from "@parley/sdk";

/** The wire shapes the web app uses, as the SDK infers them from the API contract. */
export type {
  AdminInboxItem,
  AdminInteractionEvent,
  AdminInteractionsPage,
  AdminInteractionsQuery,
  MessagePage,
  ModelChoice,
  QueuedPrompt,
  SessionListPage,
  WhoAmI,
};

/**
 * The slice of the Parley SDK the web app uses. Components depend on this interface only; the one
 * adapter in `parley-client.ts` binds it to `@parley/sdk`, so wiring and its quirks live in one place.
 */
export interface ParleyApi {
  whoami(): Promise<WhoAmI>;
  /** Display names of users (who answered a request); ids the server does not know are left out. */
  userNames(user_ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * One page of sessions, newest first; `cursor` is the previous page's `next_cursor` (null there:
   * no more). `scope: "all"` (admins) lists every user's sessions; `query` keeps those whose title
   * contains it (case-insensitive).
   */
  listSessions(options: { scope?: "own" | "all"; query?: string; cursor?: string }): Promise<SessionListPage>;
  createSession(input: { title?: string; workspace_id?: string; model_id?: string }): Promise<SessionInfo>;
  /** The operator-configured workspaces a session may be created in. */
  listWorkspaces(): Promise<string[]>;
  /** The operator-configured models a session may run on, the default first. */
  listModels(): Promise<ModelChoice[]>;
  session(session_id: string): ParleySessionApi;
  adminInteractions(query: AdminInteractionsQuery): Promise<AdminInteractionsPage>;
  /**
   * Live feed of every interaction change across sessions; reconnects by itself. `onEnded` is
   * called if the feed stops for good (not for dropped connections, which resume); `onStarted` each
   * time the server listens (a snapshot read before then may have missed an event).
   */
  subscribeAdmin(
    listener: (event: AdminInteractionEvent) => void,
    onEnded: (error: unknown) => void,
    onStarted?: () => void,
  ): () => void;
  /**
   * The same feed for the caller's own sessions (`session.onInteraction`; an admin's: every
   * session), with the same callbacks.
   */
  subscribeSessionInteractions(
    listener: (event: AdminInteractionEvent) => void,
    onEnded: (error: unknown) => void,
    onStarted?: () => void,
  ): () => void;
  close(): void;
}

export interface ParleySessionApi {
  readonly id: string;
  /**
   * Persisted mutations committed from now on, and live ones (`live: true`, DESIGN §10.6) right
   * after the durable one they follow; reconnects by itself and resumes after the last durable
   * `event_id`. `onStarted` is called once the server listens (load the snapshot then), and again
   * after each reconnect (with `last_event_id: null` the reconnect happened before any mutation
   * arrived, so the snapshot must be re-read). `onReconnect` comes before a reconnect's
   * `onStarted`: live state streamed meanwhile is gone (drop it, re-read the messages). `onEnded`
   * is called if the feed stops for good (not for dropped connections, which resume).
   */
  subscribe(
    listener: (mutation: SessionMutation) => void,
    handlers: {
      onStarted: (started: { last_event_id: number | null }) => void;
      onReconnect: () => void;
      onEnded: (error: unknown) => void;
    },
  ): () => void;
  info(): Promise<SessionInfo>;
  status(): Promise<SessionStatus>;
  /** The newest page of messages (ascending by `sequence`), or the page before `before_sequence`. */
  messages(before_sequence?: number): Promise<MessagePage>;
  /** `request_id` makes a retry idempotent: the same id never adds a second user message. */
  prompt(input: { query: string; request_id?: string }): Promise<{ turn_id: string }>;
  /** The prompts queued on the server behind the running or waiting Turn, in order. */
  queuedPrompts(): Promise<QueuedPrompt[]>;
  /** Takes a queued prompt back; `withdrawn` means it never runs. */
  withdrawPrompt(request_id: string): Promise<WithdrawPromptResult>;
  stop(): Promise<StopResult>;
  /** A new title (trimmed, 1–200 characters); the session's prompts never retitle it after. */
  rename(title: string): Promise<SessionInfo>;
  /** Ends the session for good: a running Turn stops, waiting requests are cancelled. */
  close(): Promise<void>;
  respond(input: RespondInput): Promise<InteractionResult>;
  set(input: SessionSetInput): Promise<{ queued: boolean }>;
}

/** A failure as the UI shows it: the server's `parley_code` when there is one, and its message. */
export interface DisplayError {
  readonly code: string | null;
  readonly message: string;
}

/** What a browser's `fetch` says when a request never reached the server (Chromium, Firefox, Safari). */
const NOT_REACHED = /^(?:Failed to fetch|NetworkError when attempting to fetch resource\.|Load failed)$/;

export const SERVER_NOT_REACHED = "The server could not be reached. Check the connection and try again.";

export function toDisplayError(error: unknown): DisplayError {
  if (error && typeof error === "object") {
    const code = "code" in error && typeof error.code === "string" ? error.code : null;
    const message = "message" in error && typeof error.message === "string" ? error.message : String(error);
    // The browser's own words name no cause a person can act on.
    if (code === null && NOT_REACHED.test(message)) return { code, message: SERVER_NOT_REACHED };
    return { code, message };
  }
  return { code: null, message: String(error) };
}
