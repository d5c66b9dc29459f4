"use client";

import { useId } from "react";
import type { ModelChoice } from "@/lib/parley-api";
import type { SessionModelState } from "@/lib/session-state";
import { ControlError } from "./form-fields";
import { ModelSelect } from "./model-select";
import { useAsyncAction } from "./use-async-action";

/**
 * Configured vs effective model, like the approval mode: a switch is configured at once and takes
 * effect at the agent's next Step, so while the two differ the control says which model still runs.
 */
export function ModelControl({
  model,
  choices,
  labelOf,
  running,
  disabled,
  onChange,
}: {
  model: SessionModelState;
  choices: readonly ModelChoice[];
  labelOf: (model_id: string | null) => string;
  /** Whether a Turn runs: only then is there a "next step" for a switch to wait for. */
  running: boolean;
  disabled: boolean;
  onChange: (model_id: string) => Promise<void>;
}) {
  const { busy, error, apply } = useAsyncAction(onChange);
  const statusId = useId();
  const configured = model.model_id ?? choices[0]?.model_id ?? "";
  const pendingChange = model.model_id !== model.effective_model_id;

  function choose(model_id: string) {
    if (model_id !== configured && !busy) void apply(model_id);
  }

  return (
    <div className="mode-control model-control">
      <ModelSelect
        labelClassName="segmented-label"
        testId="model-select"
        value={configured}
        choices={choices}
        disabled={disabled || busy}
        busy={busy}
        describedBy={statusId}
        onChange={choose}
      />
      <p className="mode-status" id={statusId} data-testid="model-status" aria-live="polite">
        {pendingChange && !running ? (
          <span className="muted" data-testid="model-idle-change">
            {labelOf(model.model_id)} · applies from your next message
          </span>
        ) : pendingChange ? (
          <>
            <span className="badge attention mode-pending-tag">Pending</span>
            <span className="pending-change" data-testid="model-pending">
              Takes effect at the next step · in effect now: {labelOf(model.effective_model_id)}
            </span>
          </>
        ) : (
          <span className="muted" data-testid="model-effective">
            In effect: {labelOf(model.effective_model_id)}
          </span>
        )}
      </p>
      <ControlError message={error} />
    </div>
  );
}
