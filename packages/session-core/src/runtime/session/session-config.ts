import type { SessionCommit } from "../../ports/session-store.js";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { SessionRecord, SessionSetInput } from "../../schema/session.js";
import {
  canonicalAllowances,
  describeAllowance,
  sameAllowances,
  type ToolAllowance,
} from "../../schema/tool-allowance.js";

/**
 * The settings `set()` changes: the approval mode, the tools allowed for the session and the model. Each has a configured value,
 * written before `set()` returns, and an effective one, which the running Turn uses and which takes
 * the configured value at the next Step checkpoint (when the `set` command is applied). Both follow
 * this one mechanism; a new setting joins here and in `sessionSetInputSchema`.
 */
export interface SessionConfig {
  approval_mode: ApprovalMode;
  /** In one order, without duplicates (`canonicalAllowances`). */
  tool_allowances: ToolAllowance[];
  /** Null: the agent's own model (see `AgentDefinition.models`). */
  model_id: string | null;
}

/** What one `set` changes: only the settings whose value differs from the configured one. */
export interface SessionConfigChange {
  model_id?: string;
  approval_mode?: ApprovalMode;
  /** The whole new list. */
  tool_allowances?: ToolAllowance[];
}

/** The configured and effective columns of the session row (its patch without title and times). */
type ConfigPatch = Omit<NonNullable<SessionCommit["session_patch"]>, "title" | "closed_at" | "updated_at">;

export function configuredConfig(record: SessionRecord): SessionConfig {
  return {
    approval_mode: record.approval_mode,
    tool_allowances: canonicalAllowances(record.tool_allowances),
    model_id: record.model_id,
  };
}

export function effectiveConfig(record: SessionRecord): SessionConfig {
  return {
    approval_mode: record.effective_approval_mode,
    tool_allowances: canonicalAllowances(record.effective_tool_allowances),
    model_id: record.effective_model_id,
  };
}

/** The change a `set` input asks for (as stored in its command). */
export function changeOfSetInput(input: SessionSetInput): SessionConfigChange {
  return {
    ...(input.model_id === undefined ? {} : { model_id: input.model_id }),
    ...(input.security?.approval_mode === undefined ? {} : { approval_mode: input.security.approval_mode }),
    ...(input.security?.tool_allowances === undefined
      ? {}
      : { tool_allowances: canonicalAllowances(input.security.tool_allowances) }),
  };
}

/** The `set` input (as stored in a command) that makes `change`. */
export function setInputOfChange(change: SessionConfigChange): SessionSetInput {
  return {
    ...(change.model_id === undefined ? {} : { model_id: change.model_id }),
    ...(change.approval_mode === undefined && change.tool_allowances === undefined
      ? {}
      : {
          security: {
            ...(change.approval_mode === undefined ? {} : { approval_mode: change.approval_mode }),
            ...(change.tool_allowances === undefined ? {} : { tool_allowances: change.tool_allowances }),
          },
        }),
  };
}

/** The part of `change` that differs from `current` (the same value is no change). */
export function differenceFrom(current: SessionConfig, change: SessionConfigChange): SessionConfigChange {
  return {
    ...(change.model_id === undefined || change.model_id === current.model_id
      ? {}
      : { model_id: change.model_id }),
    ...(change.approval_mode === undefined || change.approval_mode === current.approval_mode
      ? {}
      : { approval_mode: change.approval_mode }),
    ...(change.tool_allowances === undefined ||
    sameAllowances(change.tool_allowances, current.tool_allowances)
      ? {}
      : { tool_allowances: canonicalAllowances(change.tool_allowances) }),
  };
}

/**
 * The configured values the effective ones have not caught up with. A restored session with such a
 * difference and no `set` queued lost its command; it runs with effective = configured, silently.
 */
export function pendingChange(record: SessionRecord): SessionConfigChange {
  const configured = configuredConfig(record);
  return differenceFrom(effectiveConfig(record), {
    approval_mode: configured.approval_mode,
    tool_allowances: configured.tool_allowances,
    ...(configured.model_id === null ? {} : { model_id: configured.model_id }),
  });
}

/**
 * Where a Turn that starts or resumes now begins, with no `set` queued: the effective settings it
 * runs with, and the effective columns to commit when they lagged the configured ones (`pendingChange`).
 */
export function effectiveCatchUp(record: SessionRecord): { effective: SessionConfig; patch?: ConfigPatch } {
  const pending = pendingChange(record);
  if (isEmptyChange(pending)) return { effective: effectiveConfig(record) };
  return { effective: applyChange(effectiveConfig(record), pending), patch: effectivePatch(pending) };
}

export function isEmptyChange(change: SessionConfigChange): boolean {
  return (
    change.model_id === undefined &&
    change.approval_mode === undefined &&
    change.tool_allowances === undefined
  );
}

export function applyChange(config: SessionConfig, change: SessionConfigChange): SessionConfig {
  return {
    approval_mode: change.approval_mode ?? config.approval_mode,
    tool_allowances: change.tool_allowances ?? config.tool_allowances,
    model_id: change.model_id ?? config.model_id,
  };
}

/** The session row's configured columns after `set()`. */
export function configuredPatch(change: SessionConfigChange): ConfigPatch {
  return {
    ...(change.model_id === undefined ? {} : { model_id: change.model_id }),
    ...(change.approval_mode === undefined ? {} : { approval_mode: change.approval_mode }),
    ...(change.tool_allowances === undefined ? {} : { tool_allowances: change.tool_allowances }),
  };
}

/** The session row's effective columns after the checkpoint that applies `change`. */
export function effectivePatch(change: SessionConfigChange): ConfigPatch {
  return {
    ...(change.model_id === undefined ? {} : { effective_model_id: change.model_id }),
    ...(change.approval_mode === undefined ? {} : { effective_approval_mode: change.approval_mode }),
    ...(change.tool_allowances === undefined ? {} : { effective_tool_allowances: change.tool_allowances }),
  };
}

/**
 * The description of the Action that records a change: every changed setting, model first, joined
 * by `; ` (e.g. `model: Demo (alt); security.approval_mode: ask`,
 * `security.tool_allowances: shell "npm test", write_file` or `security.tool_allowances: none`).
 */
export function describeChange(change: SessionConfigChange, labelOf: (model_id: string) => string): string {
  return [
    ...(change.model_id === undefined ? [] : [`model: ${labelOf(change.model_id)}`]),
    ...(change.approval_mode === undefined ? [] : [`security.approval_mode: ${change.approval_mode}`]),
    ...(change.tool_allowances === undefined
      ? []
      : [
          `security.tool_allowances: ${change.tool_allowances.length === 0 ? "none" : change.tool_allowances.map(describeAllowance).join(", ")}`,
        ]),
  ].join("; ");
}

/** The configured and effective values as a `session`/`config` mutation carries them. */
export function configMutationFields(configured: SessionConfig, effective: SessionConfig) {
  return {
    approval_mode: configured.approval_mode,
    effective_approval_mode: effective.approval_mode,
    tool_allowances: configured.tool_allowances,
    effective_tool_allowances: effective.tool_allowances,
    ...(configured.model_id === null ? {} : { model_id: configured.model_id }),
    ...(effective.model_id === null ? {} : { effective_model_id: effective.model_id }),
  };
}
