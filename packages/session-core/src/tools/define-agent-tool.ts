import type { z } from "zod";
import type { ApprovalDecision, ApprovalRequestInput } from "../schema/approval.js";
import type {
  InteractionRequest,
  InteractionRequestInput,
  InteractionResult,
} from "../schema/interaction.js";
import type { JsonValue } from "../schema/json.js";

export interface InteractionHandle {
  interaction_id: string;
  /** Settles exactly once, after the terminal state is committed; never rejects. */
  result: Promise<InteractionResult>;
  /**
   * The stored request. A resumed tool attaches to the Interaction it created before the restart,
   * so this is the original request (e.g. the `question_id`s the answers refer to), not a new one.
   */
  request?: InteractionRequest;
}

export interface ApprovalPort {
  /** Reads the effective approval mode: `always-allow` returns at once without an Interaction. */
  request(input: ApprovalRequestInput): Promise<ApprovalDecision>;
}

/**
 * `context.interactions` of a tool, and `session.interactions.request/.approval` (one interface for both).
 */
export interface InteractionPort {
  request(input: InteractionRequestInput): Promise<InteractionHandle>;
  readonly approval: ApprovalPort;
}

/** Where a session's tools may work. Chosen at session creation; clients never send paths. */
export interface WorkspaceRef {
  workspace_id: string | null;
  root: string;
}

export interface ToolCallContext {
  session_id: string;
  turn_id: string;
  tool_call_id: string;
  tool_name: string;
  interactions: InteractionPort;
  /** Aborted when the Turn is stopped or the session closed. */
  abort_signal: AbortSignal;
  /** Undefined when the runtime was built without a workspace resolver. */
  workspace: WorkspaceRef | undefined;
}

/**
 * What a tool does to the world outside its session, so that a crash never repeats it
 * (docs/behaviour.md#side-effects, DESIGN §10.6 checkpoint 4):
 * - `true` (the default: fail safe): it may act anywhere in `execute`. The runtime commits its part
 *   `running` before `execute` starts; after a crash it fails as interrupted, never runs again.
 * - `"after_asking"`: it acts only after `interactions.approval.request` or `interactions.request`
 *   returned, on every path (the built-in gated tools). Its Interaction is the checkpoint, or, when
 *   the approval is given without asking (`always-allow`, an allowance), the `running` commit the
 *   approval makes before it returns. `execute` up to that call must be safe to run again.
 * - `false`: it has none (reads only, or asks a person and returns the answer). No checkpoint; it
 *   may run again after a crash, when a checkpoint of its Step had committed its `ready` (a `ready`
 *   that was only live is lost with its Step).
 */
export type ToolSideEffects = boolean | "after_asking";

export interface AgentTool<Input = unknown, Output extends JsonValue | undefined = JsonValue | undefined> {
  description: string;
  input_schema: z.ZodType<Input>;
  /** Absent means `true` (see `ToolSideEffects`). */
  side_effects?: ToolSideEffects;
  /**
   * Runs after the input passed `input_schema`. May run again from its start for one tool call when
   * a Turn is resumed after a restart while the tool waited for a person (or, with `side_effects`
   * not `true`, before it asked): do side effects only after approvals, which then return the
   * already-given answer.
   */
  execute(input: Input, context: ToolCallContext): Promise<Output> | Output;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of any input type
export type AnyAgentTool = AgentTool<any, JsonValue | undefined>;

export function define_agent_tool<Input, Output extends JsonValue | undefined>(definition: {
  description: string;
  input_schema: z.ZodType<Input>;
  side_effects?: ToolSideEffects;
  execute(input: Input, context: ToolCallContext): Promise<Output> | Output;
}): AgentTool<Input, Output> {
  return definition;
}
