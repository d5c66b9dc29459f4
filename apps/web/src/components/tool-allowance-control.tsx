"use client";

import type { SessionStatus, ToolAllowance } from "@parley/sdk";
import clsx from "clsx";
import { Clock, X } from "lucide-react";
import { useId, useMemo, useRef } from "react";
import { focusComposerOrMain } from "@/lib/focus";
import {
  type AllowanceRow,
  allowanceLabel,
  allowanceRows,
  withoutAllowance,
} from "@/lib/tool-allowance-view";
import { ControlError } from "./form-fields";
import { useAsyncAction } from "./use-async-action";

const stateText: Record<AllowanceRow["state"], string> = {
  active: "",
  adding: "added",
  revoking: "revoked",
};

/**
 * The session's "Allow <tool> for this session" allowances, each with a revoke button, shown the
 * way the approval mode is: configured at once, in effect from the next Step checkpoint, so an
 * added or revoked one is marked until then. Hidden while there are none. It follows the session's
 * live `security` state, so another client's change shows here too.
 */
export function ToolAllowanceControl({
  security,
  running,
  disabled,
  onChange,
}: {
  security: SessionStatus["security"];
  /** Whether a Turn runs: only then is there a "next step" for a change to wait for. */
  running: boolean;
  disabled: boolean;
  /** Sends the whole new configured list (`session.set({ security: { tool_allowances } })`). */
  onChange: (tool_allowances: ToolAllowance[]) => Promise<void>;
}) {
  const rows = useMemo(() => allowanceRows(security), [security]);
  const { busy, error, apply } = useAsyncAction(onChange);
  const labelId = useId();
  const statusId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  if (rows.length === 0) return null;
  const pendingChange = rows.some((row) => row.state !== "active");

  async function revoke(allowance: ToolAllowance) {
    await apply(withoutAllowance(security.tool_allowances, allowance));
    // The button is gone (or its row is): keep the cursor in the list, or with the whole list gone
    // in the composer, instead of losing it to <body>.
    requestAnimationFrame(() => {
      if (listRef.current) listRef.current.focus();
      else focusComposerOrMain();
    });
  }

  return (
    <div className="allowance-control" data-testid="tool-allowances">
      <span className="allowance-label" id={labelId}>
        Allowed for this session
      </span>
      <ul
        ref={listRef}
        className="allowance-list"
        aria-labelledby={labelId}
        aria-describedby={statusId}
        aria-busy={busy}
        tabIndex={-1}
      >
        {rows.map((row) => {
          const label = allowanceLabel(row.allowance);
          return (
            <li
              key={row.key}
              className={clsx("allowance-chip", row.state)}
              data-testid="tool-allowance"
              data-state={row.state}
            >
              <span className="allowance-text" title={label}>
                <span className="allowance-tool">{row.allowance.tool_name}</span>
                {row.allowance.command_prefix === undefined ? null : (
                  <>
                    <span aria-hidden>: </span>
                    <span className="sr-only"> commands starting with </span>
                    <code>{row.allowance.command_prefix}</code>
                  </>
                )}
              </span>
              {row.state === "active" ? null : (
                <>
                  {running ? <Clock size={12} aria-hidden className="segment-pending" /> : null}
                  <span className="sr-only">, {stateText[row.state]}</span>
                </>
              )}
              {row.state === "revoking" ? null : (
                <button
                  type="button"
                  className="allowance-revoke"
                  aria-label={`Revoke ${label}`}
                  title={`Revoke: ${row.allowance.tool_name} asks again`}
                  disabled={disabled || busy}
                  onClick={() => void revoke(row.allowance)}
                >
                  <X size={13} aria-hidden />
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p className="mode-status" id={statusId} data-testid="allowance-status" aria-live="polite">
        {pendingChange && !running ? (
          <span className="muted">Changes apply from your next message</span>
        ) : pendingChange ? (
          <>
            <span className="badge attention mode-pending-tag">Pending</span>
            <span className="pending-change">Takes effect at the next step</span>
          </>
        ) : null}
      </p>
      <ControlError message={error} />
    </div>
  );
}
