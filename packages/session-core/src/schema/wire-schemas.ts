/**
 * The schemas a client sees on the wire, listed once: `wire.ts` (the client's entry) and `index.ts`
 * (the runtime's) both export this list, so a new wire schema cannot reach one entry and miss the other.
 */

export * from "./approval.js";
export * from "./approval-mode.js";
export * from "./interaction.js";
export * from "./json.js";
export * from "./messages.js";
export * from "./mutation.js";
export * from "./parts.js";
export * from "./question.js";
export * from "./queued-prompt.js";
export * from "./session.js";
// The allowance shape only: its matching helpers are the runtime's, not the wire's.
export type { ToolAllowance } from "./tool-allowance.js";
