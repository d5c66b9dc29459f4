import type { ApprovalMode, Interaction, InteractionStatus, SessionInfo } from "@parley/session-core/wire";

export type {
  ApprovalMode,
  AssistantPart,
  Interaction,
  InteractionRequest,
  InteractionResponse,
  InteractionResult,
  InteractionStatus,
  MessagePage,
  PartMutation,
  Question,
  QuestionAnswer,
  RespondInput,
  SessionInfo,
  SessionMessage,
  SessionMutation,
  SessionSetInput,
  SessionSetOptions,
  SessionStatus,
  StopResult,
  ToolPart,
  TurnMutation,
} from "@parley/session-core/wire";

/*
 * The procedures' inputs and outputs, written out so the published package's types stand alone
 * (no router type from the private API package). `wire-types.check.ts` fails the typecheck if any
 * of them drifts from the router's.
 */

/** `session.create` input: `{ title?, approval_mode?, model_id?, workspace_id? }`. */
export type CreateSessionInput =
  | {
      title?: string | undefined;
      approval_mode?: ApprovalMode | undefined;
      /** One of `models.list()`; default: the server's default model. */
      model_id?: string | undefined;
      workspace_id?: string | null | undefined;
    }
  | undefined;
/** `session.list` input: `scope: "all"` (admins) lists every user's; `query` matches titles. */
export type SessionListQuery =
  | {
      cursor?: string | null | undefined;
      limit?: number | undefined;
      scope?: "own" | "all" | undefined;
      query?: string | undefined;
    }
  | undefined;
export interface SessionListPage {
  items: SessionInfo[];
  next_cursor: string | null;
}
export type MessagesQuery = { before_sequence?: number; limit?: number };
export type PromptInput = string | { query: string; request_id?: string };
export interface PromptResult {
  turn_id: string;
}
export type AdminInteractionsQuery =
  | {
      status?: InteractionStatus | undefined;
      type?: string | undefined;
      tool_name?: string | undefined;
      session_id?: string | undefined;
      cursor?: string | null | undefined;
      limit?: number | undefined;
    }
  | undefined;
export interface AdminInboxItem {
  interaction: Interaction;
  session_id: string;
  session_title: string;
  owner_id: string;
  owner_name: string | null;
  tool_name: string;
  tool_call_id: string;
  created_at: number;
}
export interface AdminInteractionsPage {
  items: AdminInboxItem[];
  next_cursor: string | null;
}
export interface AdminInteractionEvent {
  event_id: number;
  kind: "created" | "resolved" | "denied" | "cancelled" | "failed";
  session_id: string;
  interaction: Interaction;
}
export type UserRole = "member" | "admin";
export interface CreateUserInput {
  name: string;
  role?: UserRole | undefined;
}
export interface CreatedUser {
  user_id: string;
  token: string;
}
export interface RevokeUserInput {
  name: string;
}
export interface RevokedTokens {
  revoked: number;
}
export interface WhoAmI {
  user_id: string;
  name: string;
  role: UserRole;
}
export interface WorkspaceList {
  items: { workspace_id: string }[];
}
/** `model.list`: the models sessions may use, the server's default first. */
export interface ModelList {
  items: { model_id: string; label: string }[];
}
export interface UserNamesInput {
  user_ids: string[];
}
export interface UserNames {
  items: { user_id: string; name: string }[];
}

export interface SubscribeOptions {
  /**
   * Replay every mutation after this `event_id` first (0: the whole history). Omitted: only
   * mutations committed after subscribing.
   */
  after_event_id?: number;
  /**
   * Called when the subscription ends for good: a domain error (`ParleyError`, e.g. the session is
   * not visible) or an unrecoverable transport failure. Dropped connections are not errors: the
   * client reconnects and resumes by itself.
   */
  onError?: (error: unknown) => void;
}
