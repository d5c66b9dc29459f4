import type { AppRouter } from "@parley/api";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

type RouterInputs = inferRouterInputs<AppRouter>;
type RouterOutputs = inferRouterOutputs<AppRouter>;

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
} from "@parley/session-core";

/** `session.create` input: `{ title?, approval_mode?, workspace_id? }`. */
export type CreateSessionInput = NonNullable<RouterInputs["session"]["create"]>;
export type SessionListQuery = NonNullable<RouterInputs["session"]["list"]>;
export type SessionListPage = RouterOutputs["session"]["list"];
export type MessagesQuery = { before_sequence?: number; limit?: number };
export type PromptInput = string | { query: string; request_id?: string };
export type PromptResult = RouterOutputs["session"]["prompt"];
export type AdminInteractionsQuery = NonNullable<RouterInputs["admin"]["interactions"]>;
export type AdminInteractionsPage = RouterOutputs["admin"]["interactions"];
export type AdminInboxItem = AdminInteractionsPage["items"][number];
export type AdminInteractionEvent = import("@parley/api").AdminInteractionEvent;
export type CreateUserInput = RouterInputs["admin"]["users"]["create"];
export type CreatedUser = RouterOutputs["admin"]["users"]["create"];
export type WhoAmI = RouterOutputs["auth"]["whoami"];
export type WorkspaceList = RouterOutputs["workspace"]["list"];
export type UserNamesInput = RouterInputs["users"]["names"];
export type UserNames = RouterOutputs["users"]["names"];

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
