"use client";

import { Check, Pencil, X } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { toDisplayError } from "@/lib/parley-api";
import { displayTitle, TITLE_MAX_CHARS } from "@/lib/session-title";

/**
 * The session's title as the page heading, renamed in place: the pencil (or a double click) opens
 * a field, Enter or the check saves, Escape or the cross cancels. Focus goes back to the pencil
 * either way, so a keyboard user never lands on `<body>`.
 */
export function SessionTitle({
  title,
  editable,
  onRename,
}: {
  title: string;
  /** False for a closed session or while offline: the title is read-only then. */
  editable: boolean;
  onRename: (title: string) => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(title);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** The title just saved, shown until the session's own title (its live feed) catches up. */
  const [saved, setSaved] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const pencilRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  const errorId = useId();

  useEffect(() => {
    if (editing) inputRef.current?.select();
  }, [editing]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new title from the feed replaces the saved one
  useEffect(() => {
    setSaved(null);
  }, [title]);
  const shown = saved ?? title;

  // The pencil is back once editing ends: give it the focus the field had.
  useEffect(() => {
    if (!editing && returnFocus.current) {
      returnFocus.current = false;
      pencilRef.current?.focus();
    }
  }, [editing]);

  // Closed (or offline) while editing: nothing can be saved, so the field goes away.
  useEffect(() => {
    if (!editable) setEditing(false);
  }, [editable]);

  function start() {
    if (!editable) return;
    setDraft(shown);
    setError(null);
    setEditing(true);
  }

  function finish() {
    returnFocus.current = true;
    setError(null);
    setEditing(false);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    const trimmed = draft.trim();
    if (trimmed.length === 0) {
      setError("A title needs at least one character.");
      inputRef.current?.focus();
      return;
    }
    if (trimmed === shown) {
      finish();
      return;
    }
    setSaving(true);
    setError(null);
    try {
      await onRename(trimmed);
      setSaved(trimmed);
      finish();
    } catch (caught) {
      setError(toDisplayError(caught).message);
      inputRef.current?.focus();
    } finally {
      setSaving(false);
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Escape") {
      // The field's own Escape: it must not also close a dialog or trigger a page shortcut.
      event.preventDefault();
      event.stopPropagation();
      finish();
    }
  }

  if (!editing) {
    return (
      <div className="session-title-row">
        <h1 className="session-title" onDoubleClick={start} title={displayTitle(shown)}>
          {displayTitle(shown)}
        </h1>
        {editable ? (
          <button
            ref={pencilRef}
            type="button"
            className="button ghost icon-only title-edit-button"
            aria-label="Rename session"
            title="Rename session"
            onClick={start}
          >
            <Pencil size={14} aria-hidden />
          </button>
        ) : null}
      </div>
    );
  }

  return (
    <form className="session-title-form" onSubmit={save}>
      <input
        ref={inputRef}
        className="session-title-input"
        aria-label="Session title"
        aria-invalid={error !== null}
        aria-describedby={error ? errorId : undefined}
        value={draft}
        maxLength={TITLE_MAX_CHARS}
        disabled={saving}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <button type="submit" className="button ghost icon-only" aria-label="Save title" disabled={saving}>
        <Check size={16} aria-hidden />
      </button>
      <button
        type="button"
        className="button ghost icon-only"
        aria-label="Cancel renaming"
        disabled={saving}
        onClick={finish}
      >
        <X size={16} aria-hidden />
      </button>
      {error ? (
        <p id={errorId} className="field-error title-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
