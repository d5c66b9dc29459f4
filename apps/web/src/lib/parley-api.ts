import type {
  Interaction,
  InteractionResult,
  RespondInput,
  SessionInfo,
  SessionMessage,
  SessionMutation,
  SessionSetInput,
  SessionStatus,
  StopResult,
} from "@parley/session-core";

/**
 * The slice of the Parley SDK the web app uses. Components depend on this interface only; the one
 * adapter in `parley-client.ts` binds it to `@parley/sdk`, so wiring and its quirks live in one place.
 */
export interface ParleyApi {
  whoami(): Promise<Whoami>;
  /** Display names of users (who answered a request); ids the server does not know are left out. */
  userNames(user_ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * Newest first; `scope: "all"` (admins) lists every user's sessions; `query` keeps those whose
   * title contains it (case-insensitive).
   */
  listSessions(options?: { scope?: "own" | "all"; query?: string }): Promise<SessionInfo[]>;
  createSession(input: { title?: string; workspace_id?: string; model_id?: string }): Promise<SessionInfo>;
  /** The operator-configured workspaces a session may be created in. */
  listWorkspaces(): Promise<string[]>;
  /** The operator-configured models a session may run on, the default first. */
  listModels(): Promise<ModelChoice[]>;
  session(session_id: string): ParleySessionApi;
  adminInteractions(query: AdminInteractionQuery): Promise<AdminInteractionPage>;
  /**
   * Live feed of every interaction change across sessions; reconnects by itself. `onEnded` is
   * called if the feed stops for good (not for dropped connections, which resume).
   */
  subscribeAdmin(
    listener: (event: AdminInteractionEvent) => void,
    onEnded: (error: unknown) => void,
  ): () => void;
  close(): void;
}

export interface ParleySessionApi {
  readonly id: string;
  /**
   * Persisted mutations only; reconnects by itself and resumes after the last `event_id`.
   * `onEnded` is called if the feed stops for good (not for dropped connections, which resume).
   */
  subscribe(listener: (mutation: SessionMutation) => void, onEnded: (error: unknown) => void): () => void;
  info(): Promise<SessionInfo>;
  status(): Promise<SessionStatus>;
  /** The newest page of messages (ascending by `sequence`), or the page before `before_sequence`. */
  messages(before_sequence?: number): Promise<MessagePage>;
  /** `request_id` makes a retry idempotent: the same id never adds a second user message. */
  prompt(input: { query: string; request_id?: string }): Promise<{ turn_id: string }>;
  stop(): Promise<StopResult>;
  /** A new title (trimmed, 1–200 characters); the session's prompts never retitle it after. */
  rename(title: string): Promise<SessionInfo>;
  /** Ends the session for good: a running Turn stops, waiting requests are cancelled. */
  close(): Promise<void>;
  respond(input: RespondInput): Promise<InteractionResult>;
  set(input: SessionSetInput): Promise<{ queued: boolean }>;
}

export interface ModelChoice {
  readonly model_id: string;
  readonly label: string;
}

export interface MessagePage {
  readonly items: SessionMessage[];
  readonly has_more: boolean;
  readonly next_before_sequence: number | null;
}

export interface Whoami {
  readonly user_id: string;
  readonly name: string;
  readonly role: "admin" | "member";
}

export interface AdminInteractionQuery {
  readonly status?: Interaction["status"];
  readonly type?: string;
  readonly tool_name?: string;
  readonly session_id?: string;
  readonly limit?: number;
  readonly cursor?: string;
}

export interface AdminInteractionPage {
  readonly items: AdminInteractionItem[];
  readonly next_cursor: string | null;
}

/**
 * One row of `admin.interactions`: an Interaction of any session, with its session, for the admin
 * inbox.
 */
export interface AdminInteractionItem {
  readonly interaction: Interaction;
  readonly session_id: string;
  readonly session_title: string;
  readonly owner_id: string;
  readonly owner_name: string | null;
  readonly tool_name: string;
  readonly tool_call_id: string;
  readonly created_at: number;
}

/** One event of `admin.onInteraction`; `event_id` comes from one global sequence. */
export interface AdminInteractionEvent {
  readonly event_id: number;
  readonly kind: "created" | "resolved" | "denied" | "cancelled" | "failed";
  readonly session_id: string;
  readonly interaction: Interaction;
}

/** A failure as the UI shows it: the server's `parley_code` when there is one, and its message. */
export interface DisplayError {
  readonly code: string | null;
  readonly message: string;
}

export function toDisplayError(error: unknown): DisplayError {
  if (error && typeof error === "object") {
    const code = "code" in error && typeof error.code === "string" ? error.code : null;
    const message = "message" in error && typeof error.message === "string" ? error.message : String(error);
    return { code, message };
  }
  return { code: null, message: String(error) };
}
