import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { ToolAllowance } from "../../schema/tool-allowance.js";
import type { RuntimeLogger } from "../session-runtime-options.js";
import type { SessionConfig } from "./session-config.js";
import type { AgentDefinition } from "./session-facade.js";

/**
 * The settings the Turn run here uses: the session's effective values (see `session-config.ts`;
 * `set` changes them at a checkpoint, `commands/set.ts`) and the agent's models they name.
 */
export class SessionSettings {
  effective: SessionConfig;
  readonly #agent: AgentDefinition;
  readonly #session_id: string;
  readonly #logger: RuntimeLogger | undefined;

  constructor(input: {
    effective: SessionConfig;
    agent: AgentDefinition;
    session_id: string;
    logger: RuntimeLogger | undefined;
  }) {
    this.effective = input.effective;
    this.#agent = input.agent;
    this.#session_id = input.session_id;
    this.#logger = input.logger;
  }

  get approvalMode(): ApprovalMode {
    return this.effective.approval_mode;
  }

  get toolAllowances(): ToolAllowance[] {
    return this.effective.tool_allowances;
  }

  /**
   * The model of the next Step: the agent's model of the effective `model_id` (the agent's own
   * model when the session names none, or one the agent no longer offers).
   */
  stepModel(): LanguageModelV3 {
    const { model_id } = this.effective;
    if (model_id === null) return this.#agent.model;
    const found = this.#agent.models?.resolve(model_id);
    if (found) return found.model;
    this.#logger?.warn(
      { session_id: this.#session_id, model_id },
      "the session's model is not offered any more; the agent's default model runs",
    );
    return this.#agent.model;
  }

  /** What the session's Actions call a model. */
  modelLabel(model_id: string): string {
    return this.#agent.models?.resolve(model_id)?.label ?? model_id;
  }
}
