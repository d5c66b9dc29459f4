"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import clsx from "clsx";
import { Plus } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { formatRelativeTime } from "@/lib/format-time";
import { type LiveSessionSummary, withLiveSummary } from "@/lib/live-session-summary";
import { toDisplayError } from "@/lib/parley-api";
import { useSignedIn } from "./auth-provider";
import { EmptyState, ErrorState, LoadingState } from "./states";

export const SESSIONS_QUERY_KEY = ["sessions"] as const;

export function SessionSidebar({
  selected,
  onSelect,
  live,
}: {
  selected: string | null;
  onSelect: (session_id: string) => void;
  /** The open session's live state; it wins over the (polled) list for that entry. */
  live: LiveSessionSummary | null;
}) {
  const { api } = useSignedIn();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: SESSIONS_QUERY_KEY,
    queryFn: () => api.listSessions(),
    // Badges of sessions not open here have no live feed for members; a slow poll keeps them honest.
    refetchInterval: 10_000,
  });
  const [title, setTitle] = useState("");
  const titleId = useId();
  const create = useMutation({
    mutationFn: (input: { title?: string }) => api.createSession(input),
    onSuccess: async (info) => {
      setTitle("");
      await queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
      onSelect(info.session_id);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = title.trim();
    create.mutate(trimmed ? { title: trimmed } : {});
  }

  return (
    <aside className="sidebar" aria-label="Sessions">
      <form className="new-session" onSubmit={submit}>
        <label htmlFor={titleId} className="field-label">
          New session
        </label>
        <div className="row">
          <input
            id={titleId}
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            placeholder="Title (optional)"
            maxLength={200}
          />
          <button type="submit" className="button primary icon-text" disabled={create.isPending}>
            <Plus size={16} aria-hidden />
            <span>Create</span>
          </button>
        </div>
        {create.isError ? (
          <p className="field-error" role="alert">
            {toDisplayError(create.error).message}
          </p>
        ) : null}
      </form>
      <div className="session-list-wrap">
        {sessions.isPending ? (
          <LoadingState label="Loading sessions…" />
        ) : sessions.isError ? (
          <ErrorState
            title="Sessions could not be loaded"
            message={toDisplayError(sessions.error).message}
            action={{ label: "Retry", onClick: () => void sessions.refetch() }}
          />
        ) : sessions.data.length === 0 ? (
          <EmptyState title="No sessions yet">Create one above to start.</EmptyState>
        ) : (
          <ul className="session-list">
            {sessions.data
              .map((listed) => withLiveSummary(listed, live))
              .map((session) => (
                <li key={session.session_id}>
                  <button
                    type="button"
                    className={clsx("session-item", selected === session.session_id && "selected")}
                    aria-current={selected === session.session_id ? "true" : undefined}
                    onClick={() => onSelect(session.session_id)}
                  >
                    <span className="session-item-title">{session.title || "Untitled session"}</span>
                    <span className="session-item-meta">
                      <span className={clsx("dot", session.state)} aria-hidden />
                      {session.state === "running"
                        ? "Running"
                        : session.state === "closed"
                          ? "Closed"
                          : "Idle"}
                      <span aria-hidden>·</span>
                      {formatRelativeTime(session.updated_at)}
                    </span>
                    {session.pending_interactions > 0 ? (
                      <span className="badge attention">
                        <span aria-hidden>{session.pending_interactions}</span>
                        <span className="sr-only">{session.pending_interactions} waiting for an answer</span>
                      </span>
                    ) : null}
                  </button>
                </li>
              ))}
          </ul>
        )}
      </div>
    </aside>
  );
}
