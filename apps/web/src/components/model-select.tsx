"use client";

import { useId } from "react";
import type { ModelChoice } from "@/lib/parley-api";

/**
 * The "Model" picker: its label and a `<select>` of the models the server offers (labels shown,
 * `model_id` as the value). `labelClassName` fits the label to where the picker stands.
 */
export function ModelSelect({
  labelClassName,
  testId,
  value,
  choices,
  disabled,
  busy,
  describedBy,
  onChange,
}: {
  labelClassName: string;
  testId: string;
  value: string;
  choices: readonly ModelChoice[];
  disabled?: boolean;
  busy?: boolean;
  describedBy?: string;
  onChange: (model_id: string) => void;
}) {
  const id = useId();
  return (
    <div className="picker">
      <label htmlFor={id} className={labelClassName}>
        Model
      </label>
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
    </div>
  );
}
