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
  listSessions(): Promise<SessionInfo[]>;
  createSession(input: { title?: string }): Promise<SessionInfo>;
  session(session_id: string): ParleySessionApi;
  adminInteractions(query: AdminInteractionQuery): Promise<AdminInteractionItem[]>;
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
  prompt(query: string): Promise<{ turn_id: string }>;
  stop(): Promise<StopResult>;
  respond(input: RespondInput): Promise<InteractionResult>;
  set(input: SessionSetInput): Promise<{ queued: boolean }>;
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
}

/** One row of `admin.interactions` (DESIGN.md §9). */
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
