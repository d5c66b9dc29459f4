"use client";

import { Lock } from "lucide-react";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import {
  filterChoices,
  filteredPending,
  filtersFromSearch,
  filtersToSearch,
  type InboxFilters,
  knownOwnerNames,
} from "@/lib/admin-inbox-state";
import type { ParleyApi } from "@/lib/parley-api";
import { AdminInboxAnswered } from "./admin-inbox-answered";
import { AdminInboxFilters } from "./admin-inbox-filters";
import { AdminInboxPending } from "./admin-inbox-pending";
import { AppHeader } from "./app-header";
import { useSignedIn } from "./auth-provider";
import { RequireSignIn } from "./require-sign-in";
import { ErrorState, LoadingState } from "./states";
import { useAdminInboxFeed } from "./use-admin-inbox-feed";

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

/** The inbox page: filters (kept in the URL), the pending list and the recent answers. */
function InboxBody({ api }: { api: ParleyApi }) {
  const { me } = useSignedIn();
  const { state, truncated, retry, respondFor } = useAdminInboxFeed(api);
  const searchParams = useSearchParams();
  const router = useRouter();
  const filters = useMemo(() => filtersFromSearch(searchParams), [searchParams]);
  const setFilters = useCallback(
    (next: InboxFilters) => router.replace(`/admin${filtersToSearch(next)}`, { scroll: false }),
    [router],
  );
  const [now, setNow] = useState(() => Date.now());

  // Ages and the age filter move with the clock.
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 15_000);
    return () => window.clearInterval(timer);
  }, []);

  const rows = useMemo(() => filteredPending(state, filters, now), [state, filters, now]);
  const choices = useMemo(() => filterChoices(state), [state]);
  const names = useMemo(() => knownOwnerNames(state), [state]);
  const nameOf = useCallback(
    (user_id: string) => (user_id === me.user_id ? "you" : (names.get(user_id) ?? user_id)),
    [me.user_id, names],
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
          action={{ label: "Retry", onClick: retry }}
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
        {`${state.pending.size} pending`}
      </div>
      <AdminInboxFilters filters={filters} onChange={setFilters} choices={choices} />
      <AdminInboxPending
        rows={rows}
        pendingTotal={state.pending.size}
        truncated={truncated}
        now={now}
        nameOf={nameOf}
        respondFor={respondFor}
      />
      <AdminInboxAnswered answered={state.answered} now={now} nameOf={nameOf} />
    </main>
  );
}
