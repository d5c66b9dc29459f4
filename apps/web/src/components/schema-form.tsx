"use client";

import type { JsonValue } from "@parley/sdk";
import { Send, X } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { formatJson } from "@/lib/interaction-view";
import {
  buildSchemaPayload,
  readSchemaFields,
  type SchemaDraft,
  type SchemaField,
} from "@/lib/schema-form-fields";
import { AnswerError, AnswerProgress, CheckboxOption, ChoiceFieldset } from "./form-fields";
import { type InteractionBodyProps, useRespond } from "./use-respond";

function draftFromPayload(payload: JsonValue | undefined): SchemaDraft {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return {};
  const draft: SchemaDraft = {};
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === "boolean") draft[name] = value;
    else if (Array.isArray(value)) draft[name] = value.map(String);
    else if (value !== null && typeof value !== "object") draft[name] = String(value);
  }
  return draft;
}

/**
 * The answer form of a custom Interaction type, rendered from its `response_schema` alone, so a
 * tool author's new type needs no web change (see docs/behaviour.md#custom-interaction-types). The
 * server enforces the schema.
 */
export function SchemaForm({ interaction, onRespond, outcome }: InteractionBodyProps) {
  const fields = readSchemaFields(interaction.request.response_schema);
  const [draft, setDraft] = useState<SchemaDraft>({});
  const { submit, busy, sent, error, locked } = useRespond(interaction, onRespond);
  const formId = useId();

  if (fields === null) {
    return (
      <div>
        {outcome ? (
          <p className="interaction-outcome" data-testid="interaction-outcome">
            {outcome}
          </p>
        ) : null}
        <p className="muted">
          This kind of request ({interaction.interaction_type}) can't be answered from the web app.
        </p>
        <pre className="code-block">{formatJson(interaction.request.payload)}</pre>
      </div>
    );
  }
  const shown = interaction.status === "pending" ? draft : draftFromPayload(interaction.response?.payload);
  const set = (name: string, value: string | boolean | string[]) =>
    setDraft((current) => ({ ...current, [name]: value }));

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (fields === null) return;
    void submit({
      type: interaction.interaction_type,
      outcome: "resolved",
      payload: buildSchemaPayload(fields, draft),
    });
  }

  return (
    <form className="question-form schema-form" onSubmit={onSubmit} data-testid="schema-form">
      {fields.map((field, index) => (
        <SchemaFieldInput
          key={field.name}
          id={`${formId}-${index}`}
          field={field}
          value={shown[field.name]}
          disabled={locked}
          onChange={(value) => set(field.name, value)}
        />
      ))}
      <div className="card-actions">
        <button type="submit" className="button primary icon-text" disabled={locked}>
          <Send size={15} aria-hidden />
          <span>Submit</span>
        </button>
        <button
          type="button"
          className="button icon-text"
          disabled={locked}
          onClick={() => void submit({ type: interaction.interaction_type, outcome: "denied", payload: {} })}
        >
          <X size={15} aria-hidden />
          <span>Decline</span>
        </button>
        <AnswerProgress
          outcome={outcome}
          progress={busy ? "Sending…" : sent ? "Answer sent — waiting for the agent" : ""}
        />
      </div>
      <AnswerError error={error} />
    </form>
  );
}

function SchemaFieldInput({
  id,
  field,
  value,
  disabled,
  onChange,
}: {
  id: string;
  field: SchemaField;
  value: string | boolean | string[] | undefined;
  disabled: boolean;
  onChange: (value: string | boolean | string[]) => void;
}) {
  const label = `${field.label}${field.required ? " *" : ""}`;
  if (field.kind === "boolean") {
    return (
      <CheckboxOption
        id={id}
        label={label}
        checked={value === true}
        disabled={disabled}
        onChange={onChange}
      />
    );
  }
  if (field.kind === "enum" || field.kind === "multi-enum") {
    const multi = field.kind === "multi-enum";
    const picked = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
    return (
      <ChoiceFieldset
        id={id}
        legend={label}
        multi={multi}
        choices={field.options.map((option) => ({ value: option, label: option }))}
        picked={picked}
        disabled={disabled}
        onPick={(option) =>
          onChange(
            multi
              ? picked.includes(option)
                ? picked.filter((item) => item !== option)
                : field.options.filter((item) => item === option || picked.includes(item))
              : option,
          )
        }
      />
    );
  }
  return (
    <div className="question-field">
      <label htmlFor={id} className="question-text">
        {label}
      </label>
      <input
        id={id}
        type={field.kind === "number" ? "number" : "text"}
        step={field.kind === "number" && field.integer ? 1 : "any"}
        value={typeof value === "string" ? value : ""}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}
