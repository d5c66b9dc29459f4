import type { SessionStatus, ToolAllowance } from "@parley/sdk";

/**
 * One row of the session header's allowance list. `active`: configured and in effect. `adding`:
 * configured, in effect from the next Step checkpoint. `revoking`: revoked, still in effect until
 * then (the Step running now keeps its captured list).
 */
export interface AllowanceRow {
  readonly key: string;
  readonly allowance: ToolAllowance;
  readonly state: "active" | "adding" | "revoking";
}

function keyOf(allowance: ToolAllowance): string {
  return JSON.stringify([allowance.tool_name, allowance.command_prefix ?? null]);
}

/** Configured and effective allowances as one list: the configured ones in order, then the revoked. */
export function allowanceRows(security: SessionStatus["security"]): AllowanceRow[] {
  const effective = new Set(security.effective_tool_allowances.map(keyOf));
  const configured = new Set(security.tool_allowances.map(keyOf));
  const rows: AllowanceRow[] = security.tool_allowances.map((allowance) => ({
    key: keyOf(allowance),
    allowance,
    state: effective.has(keyOf(allowance)) ? "active" : "adding",
  }));
  for (const allowance of security.effective_tool_allowances) {
    if (!configured.has(keyOf(allowance))) rows.push({ key: keyOf(allowance), allowance, state: "revoking" });
  }
  return rows;
}

/** The configured list without `revoked`: what `set({ security: { tool_allowances } })` sends. */
export function withoutAllowance(
  configured: readonly ToolAllowance[],
  revoked: ToolAllowance,
): ToolAllowance[] {
  return configured.filter((allowance) => keyOf(allowance) !== keyOf(revoked));
}

/** How a person reads it: `shell: git status`, `write_file`. */
export function allowanceLabel(allowance: ToolAllowance): string {
  return allowance.command_prefix === undefined
    ? allowance.tool_name
    : `${allowance.tool_name}: ${allowance.command_prefix}`;
}
