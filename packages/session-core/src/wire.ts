/**
 * The public wire vocabulary alone (the API contract, schemas and errors, zod only): what a client needs, without the
 * runtime. `@parley/sdk` bundles this entry into its published package.
 */

export * from "./contract/index.js";
export * from "./errors.js";
export * from "./schema/approval.js";
export * from "./schema/approval-mode.js";
export * from "./schema/interaction.js";
export * from "./schema/json.js";
export * from "./schema/messages.js";
export * from "./schema/mutation.js";
export * from "./schema/parts.js";
export * from "./schema/question.js";
export * from "./schema/queued-prompt.js";
export * from "./schema/session.js";
// The allowance shape only: its matching helpers are the runtime's, not the wire's.
export type { ToolAllowance } from "./schema/tool-allowance.js";
