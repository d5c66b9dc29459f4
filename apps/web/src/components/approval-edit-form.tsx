"use client";

import type { JsonValue } from "@parley/sdk";
import { Check } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import {
  buildEditedInput,
  type EditDraft,
  type EditField,
  type EditResult,
  initialDraft,
} from "@/lib/approval-edit";
import { CheckboxOption } from "./form-fields";

/**
 * The approver's form over the fields of the call's input (for write_file its path and content,
 * for shell its command, directory and timeout, any other tool's fields by their JSON type).
 * Problems the browser can see are shown per field before anything is sent; the server checks the
 * edit against the tool's input schema and its refusal is shown by the card, still pending.
 * Escape leaves the form without sending.
 */
export function ApprovalEditForm({
  fields,
  disabled,
  onApprove,
  onCancel,
}: {
  fields: readonly EditField[];
  disabled: boolean;
  onApprove: (edited_input: JsonValue) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<EditDraft>(() => initialDraft(fields));
  const [tried, setTried] = useState(false);
  const [unchanged, setUnchanged] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const formId = useId();
  const result: EditResult = buildEditedInput(fields, draft);
  const errors = tried && !result.ok ? result.errors : {};

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>("textarea, input")?.focus();
  }, []);

  function change(key: string, value: string | boolean) {
    setDraft((current) => ({ ...current, [key]: value }));
    setUnchanged(false);
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!result.ok) {
      const first = fields.find((field) => field.key in result.errors);
      if (first) document.getElementById(`${formId}-${first.key}`)?.focus();
      return;
    }
    if (!result.changed) {
      setUnchanged(true);
      return;
    }
    onApprove(result.edited_input);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onCancel();
  }

  return (
    <form
      ref={formRef}
      className="edit-form"
      onSubmit={onSubmit}
      onKeyDown={onKeyDown}
      noValidate
      data-testid="approval-edit-form"
      aria-label="Edit the call before approving it"
    >
      <p className="section-label">Edit the call, then approve your version</p>
      {fields.map((field) => (
        <EditFieldInput
          key={field.key}
          id={`${formId}-${field.key}`}
          field={field}
          value={draft[field.key]}
          error={errors[field.key]}
          disabled={disabled}
          onChange={(value) => change(field.key, value)}
        />
      ))}
      {unchanged ? (
        <p className="field-error" role="alert" data-testid="edit-unchanged">
          Nothing is changed yet: change a field, or use Approve to run the call as asked.
        </p>
      ) : null}
      <div className="row edit-actions">
        <button
          type="submit"
          className="button primary icon-text"
          disabled={disabled}
          data-action="approve-edited"
        >
          <Check size={16} aria-hidden />
          <span>Approve with edits</span>
        </button>
        <button type="button" className="button ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function EditFieldInput({
  id,
  field,
  value,
  error,
  disabled,
  onChange,
}: {
  id: string;
  field: EditField;
  value: string | boolean | undefined;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const errorId = `${id}-error`;
  const described = error ? { "aria-invalid": true, "aria-describedby": errorId } : {};
  const errorLine = error ? (
    <p id={errorId} className="field-error" data-testid={`edit-error-${field.key}`}>
      {error}
    </p>
  ) : null;
  if (field.kind === "boolean") {
    return (
      <div className="question-field">
        <CheckboxOption
          id={id}
          label={field.key}
          checked={value === true}
          disabled={disabled}
          onChange={onChange}
          inputProps={{ "data-testid": `edit-field-${field.key}` }}
        />
      </div>
    );
  }
  const text = typeof value === "string" ? value : "";
  const hint = field.kind === "json" ? " (JSON)" : "";
  // What the text box is, whichever element holds it.
  const box = {
    id,
    value: text,
    spellCheck: false,
    disabled,
    "data-testid": `edit-field-${field.key}`,
    ...described,
  };
  return (
    <div className="question-field">
      <label htmlFor={id} className="field-label">
        {field.key}
        {hint}
      </label>
      {field.kind === "multiline" || field.kind === "json" ? (
        <textarea
          {...box}
          className="code-input"
          rows={Math.min(12, Math.max(2, text.split("\n").length + 1))}
          onChange={(event) => onChange(event.target.value)}
        />
      ) : (
        <input
          {...box}
          className={field.kind === "text" ? "code-input" : undefined}
          type={field.kind === "number" ? "number" : "text"}
          step={field.kind === "number" && field.integer ? 1 : "any"}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {errorLine}
    </div>
  );
}
