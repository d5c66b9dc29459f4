"use client";

import { type filterChoices, hasFilters, type InboxFilters, noFilters } from "@/lib/admin-inbox-state";

const ageChoices = [
  { label: "Any age", value: "0" },
  { label: "Older than 1 minute", value: String(60_000) },
  { label: "Older than 10 minutes", value: String(600_000) },
  { label: "Older than 1 hour", value: String(3_600_000) },
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
      <FilterSelect
        label="Age"
        value={String(filters.min_age_ms)}
        onChange={(age) => onChange({ ...filters, min_age_ms: Number(age) })}
        options={ageChoices}
        anyOption={false}
      />
      {hasFilters(filters) ? (
        <button type="button" className="button ghost" onClick={() => onChange(noFilters)}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}

/** One filter: its choices, after an "All" choice (value "") unless `anyOption` is false. */
function FilterSelect({
  label,
  value,
  options,
  onChange,
  anyOption = true,
}: {
  label: string;
  value: string;
  options: FilterOption[];
  onChange: (value: string) => void;
  anyOption?: boolean;
}) {
  return (
    <label className="filter">
      <span className="field-label">{label}</span>
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        {anyOption ? <option value="">All</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
