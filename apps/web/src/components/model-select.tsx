"use client";

import type { ModelChoice } from "@/lib/parley-api";

/** A `<select>` of the models the server offers (labels shown, `model_id` as the value). */
export function ModelSelect({
  id,
  testId,
  value,
  choices,
  disabled,
  busy,
  describedBy,
  onChange,
}: {
  id: string;
  testId: string;
  value: string;
  choices: readonly ModelChoice[];
  disabled?: boolean;
  busy?: boolean;
  describedBy?: string;
  onChange: (model_id: string) => void;
}) {
  return (
    <select
      id={id}
      data-testid={testId}
      value={value}
      disabled={disabled}
      aria-busy={busy}
      aria-describedby={describedBy}
      onChange={(event) => onChange(event.target.value)}
    >
      {choices.map((choice) => (
        <option key={choice.model_id} value={choice.model_id}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}
