import type { LanguageModelV3 } from "@ai-sdk/provider";
import { type AgentDefinition, type AgentModels, AskQuestionsTool } from "@parley/session-core";
import { createWorkspaceTools, type ShellSandbox } from "@parley/tools";
import { DEFAULT_SYSTEM_PROMPT } from "./default-system-prompt.js";
import { RequestFormTool } from "./request-form-tool.js";

export const DEFAULT_AGENT_ID = "default";

/**
 * The agent the API serves (packages/tools/README.md): the five workspace tools plus
 * `ask_question`, which exists only for agents that list it (G32), and `request_form` (a custom
 * interaction type).
 */
export function createDefaultAgent(options: {
  model: LanguageModelV3;
  /** The models sessions may choose (`model.list`); absent: every session runs `model`. */
  models?: AgentModels;
  /** The sandbox `shell` runs in (default: bubblewrap, no network); null leaves `shell` out. */
  shell?: ShellSandbox | null;
}): AgentDefinition {
  return {
    agent_id: DEFAULT_AGENT_ID,
    model: options.model,
    ...(options.models === undefined ? {} : { models: options.models }),
    system: DEFAULT_SYSTEM_PROMPT,
    tools: {
      ...(options.shell === undefined
        ? createWorkspaceTools()
        : createWorkspaceTools({ shell: options.shell })),
      ask_question: AskQuestionsTool,
      request_form: RequestFormTool,
    },
  };
}
