import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { MessagePage } from "../ports/session-store.js";
import type { InteractionRequest, InteractionResult, RespondInput } from "../schema/interaction.js";
import type { SessionMutation } from "../schema/mutation.js";
import type {
  SessionInfo,
  SessionSetInput,
  SessionSetOptions,
  SessionStatus,
  StopResult,
  TurnResult,
} from "../schema/session.js";
import type { AnyAgentTool, InteractionPort } from "../tools/define-agent-tool.js";

export interface TurnHandle {
  id: string;
  /** Never rejects. */
  finished: Promise<TurnResult>;
}

/** `session.interactions()` lists pending requests; `.request` / `.approval` are the port (D-7). */
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

/** Who does something; recorded as `responded_by` on answers. */
export interface Actor {
  user_id: string;
}

/** The design note's Session facade. The SDK offers the same shape over the network. */
export interface Session {
  readonly id: string;
  prompt(input: { query: string; request_id?: string }): Promise<TurnHandle>;
  stop(): Promise<StopResult>;
  /** Sets the title (trimmed, 1–200 characters); the session's prompts never retitle it after. */
  rename(title: string): Promise<SessionInfo>;
  close(): Promise<void>;
  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options?: SubscribeOptions,
  ): () => void;
  respond(input: RespondInput, actor?: Actor): Promise<InteractionResult>;
  readonly interactions: SessionInteractions;
  status(): Promise<SessionStatus>;
  set(input: SessionSetInput, options?: SessionSetOptions): Promise<{ queued: boolean }>;
  messages(query?: { before_sequence?: number; limit?: number }): Promise<MessagePage>;
  info(): Promise<SessionInfo>;
}

/** What an agent is: its model, system prompt and tools. */
export interface AgentDefinition {
  agent_id: string;
  model: LanguageModelV3;
  system?: string;
  tools: Record<string, AnyAgentTool>;
}
