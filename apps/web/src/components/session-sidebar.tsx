"use client";

import type { SessionInfo } from "@parley/sdk";
import {
  type InfiniteData,
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import clsx from "clsx";
import { Plus, Search } from "lucide-react";
import { type FormEvent, useEffect, useId, useMemo, useState } from "react";
import { formatRelativeTime } from "@/lib/format-time";
import { type LiveSessionSummary, withLiveSummary } from "@/lib/live-session-summary";
import { type SessionListPage, toDisplayError } from "@/lib/parley-api";
import { displayTitle, TITLE_MAX_CHARS } from "@/lib/session-title";
import { useModels } from "@/lib/use-models";
import { useUserNames } from "@/lib/use-user-names";
import { useSignedIn } from "./auth-provider";
import { useConnection } from "./connection-provider";
import { ModelSelect } from "./model-select";
import { EmptyState, ErrorState, LoadingState } from "./states";

export const SESSIONS_QUERY_KEY = ["sessions"] as const;

/** Every session of the loaded pages, in order. */
export function sessionsOf(data: InfiniteData<SessionListPage> | undefined): SessionInfo[] {
  return data?.pages.flatMap((page) => page.items) ?? [];
}

/**
 * The sessions, one page at a time (newest first); `fetchNextPage` loads the next while
 * `hasNextPage`. Admins see every user's sessions (their own first-class, others' with the owner's
 * name).
 */
export function useSessionList() {
  const { api, me } = useSignedIn();
  const scope = me.role === "admin" ? "all" : "own";
  return useInfiniteQuery({
    queryKey: SESSIONS_QUERY_KEY,
    queryFn: ({ pageParam }) =>
      api.listSessions({ scope, ...(pageParam === null ? {} : { cursor: pageParam }) }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    // A member's list is also re-read on each request of their sessions (`useWaitingCount`); the
    // poll keeps the rest (states, titles, an admin's view of other people's sessions) honest.
    refetchInterval: 5_000,
  });
}

/** How long typing pauses before the search asks the server. */
const SEARCH_DEBOUNCE_MS = 200;

/**
 * The sessions whose title contains `search`, asked of the server (the list holds one page, so a
 * filter over it would miss older sessions). Idle while the search is blank.
 */
function useSessionSearch(search: string) {
  const { api, me } = useSignedIn();
  const scope = me.role === "admin" ? "all" : "own";
  const [query, setQuery] = useState(search.trim());
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);
  return useInfiniteQuery({
    queryKey: [...SESSIONS_QUERY_KEY, "search", query],
    queryFn: ({ pageParam }) =>
      api.listSessions({ scope, query, ...(pageParam === null ? {} : { cursor: pageParam }) }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    enabled: query !== "",
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
}

export function SessionSidebar({
  selected,
  onSelect,
  live,
}: {
  selected: string | null;
  onSelect: (session_id: string, options?: { created?: boolean }) => void;
  /** The open session's live state; it wins over the (polled) list for that entry. */
  live: LiveSessionSummary | null;
}) {
  const { api, me } = useSignedIn();
  const { online } = useConnection();
  const queryClient = useQueryClient();
  const sessions = useSessionList();
  const [search, setSearch] = useState("");
  const searching = search.trim() !== "";
  const found = useSessionSearch(search);
  const listed = searching ? found : sessions;
  const workspaces = useQuery({
    queryKey: ["workspaces"],
    queryFn: () => api.listWorkspaces(),
    staleTime: 60_000,
  });
  const [title, setTitle] = useState("");
  const [workspace, setWorkspace] = useState("");
  const models = useModels(api);
  const [model, setModel] = useState("");
  const titleId = useId();
  const workspaceId = useId();
  const searchId = useId();
  const create = useMutation({
    mutationFn: (input: { title?: string; workspace_id?: string; model_id?: string }) =>
      api.createSession(input),
    onSuccess: async (info) => {
      setTitle("");
      await queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
      onSelect(info.session_id, { created: true });
    },
  });
  const ownerNames = useUserNames(
    api,
    me,
    sessionsOf(listed.data).map((session) => session.owner_id),
  );
  const shown = useMemo(
    () => sessionsOf(listed.data).map((session) => withLiveSummary(session, live)),
    [listed.data, live],
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = title.trim();
    create.mutate({
      ...(trimmed ? { title: trimmed } : {}),
      ...(workspace ? { workspace_id: workspace } : {}),
      ...(model ? { model_id: model } : {}),
    });
  }

  const workspaceChoices = workspaces.data ?? [];
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
            maxLength={TITLE_MAX_CHARS}
          />
          <button type="submit" className="button primary icon-text" disabled={create.isPending || !online}>
            <Plus size={16} aria-hidden />
            <span>Create</span>
          </button>
        </div>
        {workspaceChoices.length > 0 ? (
          <div className="picker">
            <label htmlFor={workspaceId} className="field-label small">
              Workspace
            </label>
            <select id={workspaceId} value={workspace} onChange={(event) => setWorkspace(event.target.value)}>
              <option value="">Its own new folder</option>
              {workspaceChoices.map((choice) => (
                <option key={choice} value={choice}>
                  {choice}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {models.choices.length > 0 ? (
          <ModelSelect
            labelClassName="field-label small"
            testId="new-session-model"
            value={model || (models.choices[0]?.model_id ?? "")}
            choices={models.choices}
            onChange={setModel}
          />
        ) : null}
        {create.isError ? (
          <p className="field-error" role="alert">
            {toDisplayError(create.error).message}
          </p>
        ) : null}
      </form>
      {sessionsOf(sessions.data).length > 0 || searching ? (
        <div className="session-search">
          <label htmlFor={searchId} className="sr-only">
            Search sessions
          </label>
          <Search size={14} aria-hidden className="search-icon" />
          <input
            id={searchId}
            type="search"
            value={search}
            placeholder="Search sessions"
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
      ) : null}
      <div className="session-list-wrap">
        {listed.isPending ? (
          <LoadingState label={searching ? "Searching…" : "Loading sessions…"} />
        ) : listed.isError && !listed.data ? (
          <ErrorState
            title={searching ? "Search failed" : "Sessions could not be loaded"}
            message={toDisplayError(listed.error).message}
            action={{ label: "Retry", onClick: () => void listed.refetch() }}
          />
        ) : shown.length === 0 ? (
          <EmptyState title={searching ? "No session matches" : "No sessions yet"}>
            {searching ? `No title contains "${search.trim()}".` : "Create one above to start."}
          </EmptyState>
        ) : (
          <ul className="session-list">
            {shown.map((session) => (
              <li key={session.session_id}>
                <button
                  type="button"
                  className={clsx("session-item", selected === session.session_id && "selected")}
                  aria-current={selected === session.session_id ? "true" : undefined}
                  onClick={() => onSelect(session.session_id)}
                >
                  <span className="session-item-title">{displayTitle(session.title)}</span>
                  <span className="session-item-meta">
                    <span className={clsx("dot", session.state)} aria-hidden />
                    {session.state === "running" ? "Running" : session.state === "closed" ? "Closed" : "Idle"}
                    <span aria-hidden>·</span>
                    {formatRelativeTime(session.updated_at)}
                    {session.owner_id !== me.user_id ? (
                      <>
                        <span aria-hidden>·</span>
                        <span className="session-owner" data-testid="session-owner">
                          {ownerNames(session.owner_id)}
                        </span>
                      </>
                    ) : null}
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
        {shown.length > 0 ? (
          <div className="session-list-footer" data-testid="session-list-footer">
            {listed.hasNextPage ? (
              <button
                type="button"
                className="button"
                disabled={listed.isFetchingNextPage}
                onClick={() => void listed.fetchNextPage()}
              >
                {listed.isFetchingNextPage ? "Loading…" : "Load more sessions"}
              </button>
            ) : (
              <p className="session-list-end">
                {shown.length === 1 ? "1 session, all shown" : `${shown.length} sessions, all shown`}
              </p>
            )}
          </div>
        ) : null}
      </div>
    </aside>
  );
}
