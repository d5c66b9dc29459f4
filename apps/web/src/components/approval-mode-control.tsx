"use client";

import type { ApprovalMode } from "@parley/sdk";
import * as Dialog from "@radix-ui/react-dialog";
import clsx from "clsx";
import { Clock, ShieldAlert } from "lucide-react";
import { useId, useState } from "react";
import { ControlError } from "./form-fields";
import { useAsyncAction } from "./use-async-action";

const modeLabel: Record<ApprovalMode, string> = { ask: "Ask first", "always-allow": "Always allow" };

/**
 * Configured vs effective approval mode. A change is configured at once but only takes effect at
 * the agent's next Step, so the control says so while the two differ. `always-allow` needs an
 * explicit confirmation.
 */
export function ApprovalModeControl({
  security,
  running,
  disabled,
  onChange,
}: {
  security: { approval_mode: ApprovalMode; effective_approval_mode: ApprovalMode };
  /** Whether a Turn runs: only then is there a "next step" for a change to wait for. */
  running: boolean;
  disabled: boolean;
  onChange: (mode: ApprovalMode) => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, apply } = useAsyncAction(onChange);
  const groupId = useId();
  const statusId = useId();
  const pendingChange = security.approval_mode !== security.effective_approval_mode;

  function choose(mode: ApprovalMode) {
    if (mode === security.approval_mode || busy) return;
    if (mode === "always-allow") setConfirming(true);
    else void apply(mode);
  }

  return (
    <div className="mode-control">
      <fieldset
        className="segmented"
        disabled={disabled || busy}
        aria-busy={busy}
        aria-describedby={statusId}
      >
        <legend className="segmented-label">Approvals</legend>
        {(["ask", "always-allow"] as const).map((mode) => {
          const selected = security.approval_mode === mode;
          return (
            <label
              key={mode}
              className={clsx("segment", selected && "on", mode === "always-allow" && "risky")}
            >
              <input
                type="radio"
                className="sr-only"
                name={groupId}
                value={mode}
                checked={selected}
                onChange={() => choose(mode)}
              />
              {modeLabel[mode]}
              {selected && pendingChange && running ? (
                <Clock size={12} aria-hidden className="segment-pending" />
              ) : null}
            </label>
          );
        })}
      </fieldset>
      <p className="mode-status" id={statusId} data-testid="mode-status" aria-live="polite">
        {pendingChange && !running ? (
          // Idle: nothing runs under the old mode; the new one applies to the next message.
          <span className="muted" data-testid="mode-idle-change">
            {modeLabel[security.approval_mode]} · applies from your next message
          </span>
        ) : pendingChange ? (
          <>
            <span className="badge attention mode-pending-tag">Pending</span>
            <span className="pending-change" data-testid="mode-pending">
              Takes effect at the next step · in effect now: {modeLabel[security.effective_approval_mode]}
            </span>
          </>
        ) : (
          <span className="muted">In effect: {modeLabel[security.effective_approval_mode]}</span>
        )}
      </p>
      <ControlError message={error} />
      <Dialog.Root open={confirming} onOpenChange={setConfirming}>
        <Dialog.Portal>
          <Dialog.Overlay className="dialog-overlay" />
          <Dialog.Content className="dialog">
            <Dialog.Title className="dialog-title">
              <ShieldAlert size={18} aria-hidden />
              Allow every tool call without asking?
            </Dialog.Title>
            <Dialog.Description className="dialog-description">
              The agent will run file changes and shell commands in this session without waiting for approval,
              starting at its next step. Approvals already waiting still need an answer. You can switch back
              to “Ask first” at any time.
            </Dialog.Description>
            <div className="dialog-actions">
              <Dialog.Close asChild>
                <button type="button" className="button">
                  Keep asking
                </button>
              </Dialog.Close>
              <button
                type="button"
                className="button danger"
                onClick={() => {
                  setConfirming(false);
                  void apply("always-allow");
                }}
              >
                Always allow
              </button>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </div>
  );
}
