import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { InteractionWithMessage, MessagePage } from "../../ports/session-store.js";
import type { InteractionRequest, InteractionResult, RespondInput } from "../../schema/interaction.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { QueuedPrompt, WithdrawPromptResult } from "../../schema/queued-prompt.js";
import type {
  SessionInfo,
  SessionSetInput,
  SessionSetOptions,
  SessionStatus,
  StopResult,
  TurnResult,
} from "../../schema/session.js";
import type { AnyAgentTool, InteractionPort } from "../../tools/define-agent-tool.js";
import type { AnswerLock } from "./answer-lock.js";

export interface TurnHandle {
  id: string;
  /** Never rejects. */
  finished: Promise<TurnResult>;
}

/**
 * `session.interactions()` lists pending requests; `.request` / `.approval` are the same port a
 * tool gets as `context.interactions`.
 */
export interface SessionInteractions extends InteractionPort {
  (): Promise<InteractionRequest[]>;
}

export interface SubscribeOptions {
  /**
   * Replay every committed mutation after this event id before live ones (no gap, no duplicate).
   * Omitted: only mutations committed after the subscription started.
   */
  after_event_id?: number;
}

/**
 * What a `respond` caller already read, so that the answer does not read it again: `interaction` is
 * the answered Interaction with its message as `SessionStore.getAnswerContext` read it beside the
 * session (null: not in this session). An API procedure reads it with its access check; nothing of it
 * is used before the answer's own checks.
 */
export interface RespondPrefetch {
  interaction?: InteractionWithMessage | null;
  /**
   * The session's lock the caller asked for while it read (`SessionRuntimeApi.lockForAnswer`): a
   * claim takes it. The caller settles it once the answer is done.
   */
  answer_lock?: AnswerLock;
}

/** Who does something; recorded as `responded_by` on answers. */
export interface Actor {
  user_id: string;
}

/**
 * The Session facade: what a caller holds for one session. The SDK offers the same shape over the
 * network.
 */
export interface Session {
  readonly id: string;
  prompt(input: { query: string; request_id?: string }): Promise<TurnHandle>;
  /** The prompts queued behind the running or waiting Turn they joined, in order. */
  queuedPrompts(): Promise<QueuedPrompt[]>;
  /** Withdraws a queued prompt by its `request_id`; once `withdrawn` it never runs. */
  withdrawPrompt(input: { request_id: string }): Promise<WithdrawPromptResult>;
  stop(): Promise<StopResult>;
  /** Sets the title (trimmed, 1–200 characters); the session's prompts never retitle it after. */
  rename(title: string): Promise<SessionInfo>;
  close(): Promise<void>;
  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options?: SubscribeOptions,
  ): () => void;
  respond(input: RespondInput, actor?: Actor, prefetched?: RespondPrefetch): Promise<InteractionResult>;
  readonly interactions: SessionInteractions;
  status(): Promise<SessionStatus>;
  set(input: SessionSetInput, options?: SessionSetOptions): Promise<{ queued: boolean }>;
  messages(query?: { before_sequence?: number; limit?: number }): Promise<MessagePage>;
  info(): Promise<SessionInfo>;
}

/** One model a session may run on, by its stable `model_id` (`model.list` in the API). */
export interface AgentModel {
  model_id: string;
  /** What people read (the Action of a model change says `model: <label>`). */
  label: string;
  model: LanguageModelV3;
}

/**
 * The models an agent's sessions may choose from. The runtime asks it for the model of each Step
 * by the session's effective `model_id`, so session-core never knows a provider.
 */
export interface AgentModels {
  /** What a session created without `model_id` runs on. */
  readonly default_model_id: string;
  /** The model of `model_id`, or undefined when the agent does not offer it. */
  resolve(model_id: string): AgentModel | undefined;
}

/** What an agent is: its model(s), system prompt and tools. */
export interface AgentDefinition {
  agent_id: string;
  /**
   * The model of a session whose `model_id` is null (an agent without `models`, or a session stored
   * before models could be chosen), and of one whose model the agent no longer offers.
   */
  model: LanguageModelV3;
  models?: AgentModels;
  system?: string;
  tools: Record<string, AnyAgentTool>;
}
