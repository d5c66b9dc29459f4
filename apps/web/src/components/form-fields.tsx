"use client";

import type { InputHTMLAttributes, ReactNode } from "react";
import type { DisplayError } from "@/lib/parley-api";
import { errorText } from "./use-respond";

export interface Choice {
  value: string;
  label: string;
  description?: string | undefined;
}

/**
 * One question's options as radio buttons (one answer) or checkboxes (`multi`), the whole set
 * disabled at once; `onPick` gets the option clicked (the form decides what a click on a picked
 * checkbox means).
 */
export function ChoiceFieldset({
  id,
  legend,
  hint,
  multi,
  choices,
  picked,
  disabled,
  onPick,
}: {
  id: string;
  legend: string;
  hint?: string;
  multi: boolean;
  choices: readonly Choice[];
  picked: readonly string[];
  disabled: boolean;
  onPick: (value: string) => void;
}) {
  return (
    <fieldset className="question-field" disabled={disabled}>
      <legend className="question-text">
        {legend}
        {hint ? (
          <>
            {" "}
            <span className="muted small question-hint">{hint}</span>
          </>
        ) : null}
      </legend>
      <div className="options">
        {choices.map((choice, index) => (
          <label key={choice.value} className="option" htmlFor={`${id}-${index}`}>
            <input
              id={`${id}-${index}`}
              type={multi ? "checkbox" : "radio"}
              name={id}
              value={choice.value}
              checked={picked.includes(choice.value)}
              onChange={() => onPick(choice.value)}
            />
            <span>
              <span className="option-label">{choice.label}</span>
              {choice.description ? <span className="option-description">{choice.description}</span> : null}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** A yes/no field: a checkbox in an option box, labelled beside it. */
export function CheckboxOption({
  id,
  label,
  checked,
  disabled,
  onChange,
  inputProps,
}: {
  id: string;
  label: ReactNode;
  checked: boolean;
  disabled: boolean;
  onChange: (checked: boolean) => void;
  /** Further attributes of the checkbox (a test id). */
  inputProps?: InputHTMLAttributes<HTMLInputElement> & { "data-testid"?: string };
}) {
  return (
    <label className="option" htmlFor={id}>
      <input
        {...inputProps}
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
      />
      <span className="option-label">{label}</span>
    </label>
  );
}

/** Where an answer form says how it ended, or else how the answer is going (`progress`). */
export function AnswerProgress({
  outcome,
  progress,
  id,
}: {
  outcome: string | null;
  progress: string;
  id?: string;
}) {
  return outcome ? (
    <span className="interaction-outcome" data-testid="interaction-outcome">
      {outcome}
    </span>
  ) : (
    <span className="card-note" id={id} role="status">
      {progress}
    </span>
  );
}

/** Why the server refused an answer, announced; nothing when it did not. */
export function AnswerError({ error }: { error: DisplayError | null }) {
  return error ? (
    <p className="field-error" role="alert" data-testid="interaction-error">
      {errorText(error)}
    </p>
  ) : null;
}

/** Why a control's last change failed, announced; nothing when it did not. */
export function ControlError({ message }: { message: string | null }) {
  return message ? (
    <p className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}
