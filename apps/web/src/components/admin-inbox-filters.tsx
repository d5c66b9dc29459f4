"use client";

import { type filterChoices, hasFilters, type InboxFilters, noFilters } from "@/lib/admin-inbox-state";

const ageChoices = [
  { label: "Any age", value: 0 },
  { label: "Older than 1 minute", value: 60_000 },
  { label: "Older than 10 minutes", value: 600_000 },
  { label: "Older than 1 hour", value: 3_600_000 },
];

interface FilterOption {
  value: string;
  label: string;
}

/** The inbox's filter bar: type, tool, session and age, each narrowing the pending list. */
export function AdminInboxFilters({
  filters,
  onChange,
  choices,
}: {
  filters: InboxFilters;
  onChange: (filters: InboxFilters) => void;
  choices: ReturnType<typeof filterChoices>;
}) {
  return (
    <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <FilterSelect
        label="Type"
        value={filters.type}
        onChange={(type) => onChange({ ...filters, type })}
        options={choices.types.map((type) => ({ value: type, label: type }))}
      />
      <FilterSelect
        label="Tool"
        value={filters.tool}
        onChange={(tool) => onChange({ ...filters, tool })}
        options={choices.tools.map((tool) => ({ value: tool, label: tool }))}
      />
      <FilterSelect
        label="Session"
        value={filters.session}
        onChange={(session) => onChange({ ...filters, session })}
        options={choices.sessions.map((session) => ({
          value: session.session_id,
          label: session.title || session.session_id,
        }))}
      />
      <label className="filter">
        <span className="field-label">Age</span>
        <select
          value={filters.min_age_ms}
          onChange={(event) => onChange({ ...filters, min_age_ms: Number(event.target.value) })}
        >
          {ageChoices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      {hasFilters(filters) ? (
        <button type="button" className="button ghost" onClick={() => onChange(noFilters)}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}

function FilterSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: FilterOption[];
  onChange: (value: string) => void;
}) {
  return (
    <label className="filter">
      <span className="field-label">{label}</span>
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
