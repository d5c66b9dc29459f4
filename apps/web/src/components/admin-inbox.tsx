"use client";

import type { RespondInput } from "@parley/sdk";
import { ExternalLink, Lock } from "lucide-react";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import {
  adminInboxReducer,
  createAdminInboxState,
  filterChoices,
  filteredPending,
  filtersFromSearch,
  filtersToSearch,
  hasFilters,
  INBOX_PAGE_SIZE,
  type InboxFilters,
  knownOwnerNames,
  noFilters,
  RECENTLY_ANSWERED_LIMIT,
} from "@/lib/admin-inbox-state";
import { formatRelativeTime } from "@/lib/format-time";
import { buildApprovalResponse, describeOutcome } from "@/lib/interaction-view";
import { type AdminInboxItem, type DisplayError, type ParleyApi, toDisplayError } from "@/lib/parley-api";
import { AppHeader } from "./app-header";
import { useSignedIn } from "./auth-provider";
import { InteractionCard } from "./interaction-card";
import { RequireSignIn } from "./require-sign-in";
import { EmptyState, ErrorState, LoadingState } from "./states";

export function AdminInbox() {
  return (
    <RequireSignIn>
      <div className="app-frame">
        <AppHeader current="inbox" />
        <AdminOnly />
      </div>
    </RequireSignIn>
  );
}

function AdminOnly() {
  const { me, api } = useSignedIn();
  if (me.role !== "admin") {
    return (
      <main className="centered-page" id="main">
        <div className="panel narrow" data-testid="admins-only">
          <Lock size={22} aria-hidden className="empty-icon" />
          <h1>Admins only</h1>
          <p className="muted">
            The inbox shows every session's pending requests, so only administrators can open it. You are
            signed in as <strong>{me.name}</strong> (member).
          </p>
          <Link className="button primary" href="/">
            Back to your sessions
          </Link>
        </div>
      </main>
    );
  }
  return <InboxBody api={api} />;
}

const ageChoices = [
  { label: "Any age", value: 0 },
  { label: "Older than 1 minute", value: 60_000 },
  { label: "Older than 10 minutes", value: 600_000 },
  { label: "Older than 1 hour", value: 3_600_000 },
];

/** Pages followed per load; beyond this the inbox says so instead of cutting silently. */
const MAX_PENDING_PAGES = 25;
const PAGE_LIMIT = 200;

async function loadLists(api: ParleyApi) {
  const [pendingPages, resolved, denied] = await Promise.all([
    loadAllPending(api),
    api.adminInteractions({ status: "resolved", limit: RECENTLY_ANSWERED_LIMIT }),
    api.adminInteractions({ status: "denied", limit: RECENTLY_ANSWERED_LIMIT }),
  ]);
  return {
    pending: pendingPages.items,
    truncated: pendingPages.truncated,
    answered: [...resolved.items, ...denied.items],
  };
}

/** Every pending row, page by page (oldest first), up to a bound the page reports when reached. */
async function loadAllPending(api: ParleyApi) {
  const items: AdminInboxItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PENDING_PAGES; page += 1) {
    const result = await api.adminInteractions({
      status: "pending",
      limit: PAGE_LIMIT,
      ...(cursor ? { cursor } : {}),
    });
    items.push(...result.items);
    cursor = result.next_cursor;
    if (!cursor) return { items, truncated: false };
  }
  return { items, truncated: true };
}

function InboxBody({ api }: { api: ParleyApi }) {
  const { me } = useSignedIn();
  const [state, dispatch] = useReducer(adminInboxReducer, undefined, createAdminInboxState);
  const searchParams = useSearchParams();
  const router = useRouter();
  const filters = useMemo(() => filtersFromSearch(searchParams), [searchParams]);
  const setFilters = useCallback(
    (next: InboxFilters) => router.replace(`/admin${filtersToSearch(next)}`, { scroll: false }),
    [router],
  );
  const [now, setNow] = useState(() => Date.now());
  const [reloadKey, setReloadKey] = useState(0);
  const [truncated, setTruncated] = useState(false);
  const [shown, setShown] = useState(INBOX_PAGE_SIZE);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [bulk, setBulk] = useState<{ busy: boolean; message: string | null }>({ busy: false, message: null });

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey re-runs the load on "Retry"
  useEffect(() => {
    let disposed = false;
    const unsubscribe = api.subscribeAdmin(
      (event) => {
        if (!disposed) dispatch({ type: "event", event });
      },
      (error) => {
        if (!disposed)
          dispatch({ type: "error", message: `Live updates stopped: ${toDisplayError(error).message}` });
      },
    );
    loadLists(api).then(
      (lists) => {
        if (disposed) return;
        setTruncated(lists.truncated);
        dispatch({ type: "loaded", ...lists });
      },
      (error: unknown) => !disposed && dispatch({ type: "error", message: toDisplayError(error).message }),
    );
    return () => {
      disposed = true;
      unsubscribe();
    };
  }, [api, reloadKey]);

  // Rows from a session the inbox had not seen arrive without title/owner: fetch them once.
  useEffect(() => {
    if (!state.needs_refresh) return;
    let disposed = false;
    loadLists(api).then(
      (lists) => !disposed && dispatch({ type: "loaded", ...lists }),
      () => undefined,
    );
    return () => {
      disposed = true;
    };
  }, [api, state.needs_refresh]);

  // The SDK cannot say when the live feed is established, so an interaction created between
  // loading the lists and the feed going live would be missed; a slow re-read closes that gap.
  useEffect(() => {
    const timer = window.setInterval(() => {
      loadLists(api).then(
        (lists) => {
          setTruncated(lists.truncated);
          dispatch({ type: "loaded", ...lists });
        },
        () => undefined,
      );
    }, 30_000);
    return () => window.clearInterval(timer);
  }, [api]);

  // Ages and the age filter move with the clock.
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 15_000);
    return () => window.clearInterval(timer);
  }, []);

  const rows = useMemo(() => filteredPending(state, filters, now), [state, filters, now]);
  const visibleRows = rows.slice(0, shown);
  const selectedRows = rows.filter(
    (item) =>
      selected.has(item.interaction.interaction_id) && item.interaction.interaction_type === "approval",
  );

  async function answerSelected(decision: "approved" | "denied") {
    setBulk({ busy: true, message: null });
    const results = await Promise.all(
      selectedRows.map((item) =>
        respondFor(item.session_id)({
          interaction_id: item.interaction.interaction_id,
          response: buildApprovalResponse(decision),
        }),
      ),
    );
    const failed = results.filter((result) => result !== null).length;
    setSelected(new Set());
    const verb = decision === "approved" ? "Approved" : "Denied";
    setBulk({
      busy: false,
      message:
        failed === 0
          ? `${verb} ${results.length}.`
          : `${verb} ${results.length - failed}; ${failed} could not be answered (answered elsewhere?).`,
    });
  }
  const choices = useMemo(() => filterChoices(state), [state]);
  const names = useMemo(() => knownOwnerNames(state), [state]);
  const nameOf = useCallback(
    (user_id: string) => (user_id === me.user_id ? "you" : (names.get(user_id) ?? user_id)),
    [me.user_id, names],
  );
  const announcement = useMemo(
    () => (state.phase === "ready" ? `${state.pending.size} pending` : ""),
    [state],
  );

  const respondFor = useCallback(
    (session_id: string) =>
      async (input: RespondInput): Promise<DisplayError | null> => {
        try {
          await api.session(session_id).respond(input);
          return null;
        } catch (error) {
          const display = toDisplayError(error);
          if (display.code === "interaction_not_pending") {
            loadLists(api).then(
              (lists) => dispatch({ type: "loaded", ...lists }),
              () => undefined,
            );
          }
          return display;
        }
      },
    [api],
  );

  if (state.phase === "loading") {
    return (
      <main className="centered-page" id="main">
        <LoadingState label="Loading the inbox…" />
      </main>
    );
  }
  if (state.phase === "error") {
    return (
      <main className="centered-page" id="main">
        <ErrorState
          title="The inbox could not be loaded"
          message={state.error ?? "Unknown error"}
          action={{ label: "Retry", onClick: () => setReloadKey((value) => value + 1) }}
        />
      </main>
    );
  }

  return (
    <main className="inbox" id="main">
      <div className="inbox-head">
        <h1>Inbox</h1>
        <p className="muted">Every request waiting for a person, across all sessions. Oldest first.</p>
      </div>
      <div className="sr-only" aria-live="polite">
        {announcement}
      </div>
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <FilterSelect
          label="Type"
          value={filters.type}
          onChange={(type) => setFilters({ ...filters, type })}
          options={choices.types.map((type) => ({ value: type, label: type }))}
        />
        <FilterSelect
          label="Tool"
          value={filters.tool}
          onChange={(tool) => setFilters({ ...filters, tool })}
          options={choices.tools.map((tool) => ({ value: tool, label: tool }))}
        />
        <FilterSelect
          label="Session"
          value={filters.session}
          onChange={(session) => setFilters({ ...filters, session })}
          options={choices.sessions.map((session) => ({
            value: session.session_id,
            label: session.title || session.session_id,
          }))}
        />
        <label className="filter">
          <span className="field-label">Age</span>
          <select
            value={filters.min_age_ms}
            onChange={(event) => setFilters({ ...filters, min_age_ms: Number(event.target.value) })}
          >
            {ageChoices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        {hasFilters(filters) ? (
          <button type="button" className="button ghost" onClick={() => setFilters(noFilters)}>
            Clear filters
          </button>
        ) : null}
      </form>
      <section aria-labelledby="pending-heading" className="inbox-section">
        <h2 id="pending-heading">
          Pending <span className="count">{rows.length}</span>
          {rows.length !== state.pending.size ? (
            <span className="muted small"> of {state.pending.size}</span>
          ) : null}
        </h2>
        {truncated ? (
          <p className="notice" role="note" data-testid="inbox-truncated">
            More than {MAX_PENDING_PAGES * PAGE_LIMIT} requests are pending; the oldest {state.pending.size}{" "}
            are listed. Answer some or narrow the filters to see the rest.
          </p>
        ) : null}
        {selectedRows.length > 0 || bulk.message ? (
          <section className="bulk-bar" aria-label="Bulk actions">
            {selectedRows.length > 0 ? (
              <>
                <span>{selectedRows.length} selected</span>
                <button
                  type="button"
                  className="button primary"
                  disabled={bulk.busy}
                  onClick={() => void answerSelected("approved")}
                >
                  Approve selected
                </button>
                <button
                  type="button"
                  className="button danger-outline"
                  disabled={bulk.busy}
                  onClick={() => void answerSelected("denied")}
                >
                  Deny selected
                </button>
                <button type="button" className="button ghost" onClick={() => setSelected(new Set())}>
                  Clear selection
                </button>
              </>
            ) : null}
            {bulk.message ? (
              <span role="status" className="muted">
                {bulk.message}
              </span>
            ) : null}
          </section>
        ) : null}
        {rows.length === 0 ? (
          <EmptyState
            title={state.pending.size === 0 ? "Nothing is waiting" : "Nothing matches these filters"}
          >
            {state.pending.size === 0
              ? "New approvals and questions appear here as soon as an agent asks."
              : null}
          </EmptyState>
        ) : (
          <>
            <ul className="inbox-list">
              {visibleRows.map((item) => {
                const id = item.interaction.interaction_id;
                return (
                  <li key={id} data-testid="inbox-row">
                    <InteractionCard
                      interaction={item.interaction}
                      onRespond={respondFor(item.session_id)}
                      nameOf={nameOf}
                      context={
                        <RowContext
                          item={item}
                          now={now}
                          selected={selected.has(id)}
                          onSelect={(value) =>
                            setSelected((current) => {
                              const next = new Set(current);
                              if (value) next.add(id);
                              else next.delete(id);
                              return next;
                            })
                          }
                        />
                      }
                    />
                  </li>
                );
              })}
            </ul>
            <p className="paging muted small">
              Showing {visibleRows.length} of {rows.length}
              {rows.length > visibleRows.length ? (
                <button
                  type="button"
                  className="button ghost"
                  onClick={() => setShown((value) => value + INBOX_PAGE_SIZE)}
                >
                  Show {Math.min(INBOX_PAGE_SIZE, rows.length - visibleRows.length)} more
                </button>
              ) : null}
            </p>
          </>
        )}
      </section>
      <section aria-labelledby="answered-heading" className="inbox-section">
        <h2 id="answered-heading">Recently answered</h2>
        {state.answered.length === 0 ? (
          <EmptyState title="No answers yet" />
        ) : (
          <ul className="answered-list">
            {state.answered.map((item) => (
              <li key={item.interaction.interaction_id} className="answered-row" data-testid="answered-row">
                <span className={`status-pill status-${item.interaction.status}`}>
                  {describeOutcome(item.interaction, nameOf)}
                </span>
                <span className="answered-what">
                  {item.interaction.interaction_type === "approval"
                    ? item.tool_name || "tool call"
                    : (item.interaction.request.title ?? "question")}
                </span>
                <Link href={`/?session=${encodeURIComponent(item.session_id)}`} className="muted link">
                  {item.session_title || item.session_id}
                </Link>
                <span className="muted small">
                  {item.interaction.resolved_at ? formatRelativeTime(item.interaction.resolved_at, now) : ""}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}

function RowContext({
  item,
  now,
  selected,
  onSelect,
}: {
  item: AdminInboxItem;
  now: number;
  selected: boolean;
  onSelect: (selected: boolean) => void;
}) {
  const title = item.session_title || item.session_id;
  return (
    <p className="row-context">
      {item.interaction.interaction_type === "approval" ? (
        <label className="row-select">
          <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.target.checked)} />
          <span className="sr-only">Select this request in {title}</span>
        </label>
      ) : null}
      <span>
        Session <strong>{title}</strong>
      </span>
      <span aria-hidden>·</span>
      <span>owner {item.owner_name ?? "unknown user"}</span>
      <span aria-hidden>·</span>
      <span>asked {formatRelativeTime(item.created_at, Math.max(now, item.created_at))}</span>
      <Link className="link icon-text" href={`/?session=${encodeURIComponent(item.session_id)}`}>
        <ExternalLink size={13} aria-hidden />
        Open session
      </Link>
    </p>
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
  options: { value: string; label: string }[];
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
