export * from "./adapters/in-memory-event-bus.js";
export * from "./adapters/in-memory-session-store.js";
export * from "./adapters/in-memory-turn-lease.js";
export * from "./adapters/listener-registry.js";
export * from "./errors.js";
export * from "./ports/auth-store.js";
export * from "./ports/clock.js";
export * from "./ports/event-bus.js";
export * from "./ports/inbox-reader.js";
export * from "./ports/session-store.js";
export * from "./ports/turn-lease.js";
export { parseRespondInput } from "./runtime/commands/respond.js";
export { CONFIG_ACTION_TITLE } from "./runtime/commands/set.js";
export { PROMPT_CANCELLED, TURN_STOPPED } from "./runtime/commands/stop.js";
export {
  type ComposedRuntime,
  type ComposeRuntimeOptions,
  composeRuntime,
  type RuntimeAdapters,
  type WorkspaceResolver,
} from "./runtime/compose-runtime.js";
export { createRandomIdSource, RuntimeIds, toolPartId } from "./runtime/ids.js";
export type { AnswerLock } from "./runtime/session/answer-lock.js";
export { AUTO_TITLE_MAX_CHARS, titleFromPrompt } from "./runtime/session/auto-title.js";
export * from "./runtime/session/session-facade.js";
export { SessionRuntime, type SessionRuntimeStats } from "./runtime/session-runtime.js";
export * from "./runtime/session-runtime-options.js";
export { TOOL_INTERRUPTED, TURN_INTERRUPTED } from "./runtime/turn/parking.js";
export { MAX_STEPS } from "./runtime/turn/turn-runner.js";
export * from "./schema/session-command.js";
export * from "./schema/storable-json.js";
export * from "./schema/tool-allowance.js";
export * from "./schema/turn.js";
export * from "./schema/user-role.js";
export * from "./schema/wire-schemas.js";
export * from "./store/commit-parts.js";
export * from "./store/commit-well-formedness.js";
export * from "./store/page-cursor.js";
export * from "./store/starting-prompt.js";
export * from "./store/store-order.js";
export { ASK_QUESTION_DESCRIPTION, AskQuestionsTool } from "./tools/ask-question-tool.js";
export * from "./tools/define-agent-tool.js";
