"use client";

import clsx from "clsx";
import { Inbox, LogOut, MessagesSquare } from "lucide-react";
import Link from "next/link";
import { NotificationToggle, useAttentionTitle } from "./attention";
import { useAuth, useSignedIn } from "./auth-provider";
import { ConnectionBanner } from "./connection-provider";
import { KeyboardShortcuts } from "./keyboard-shortcuts";
import { ThemeToggle } from "./theme";
import { useWaitingCount } from "./use-waiting-count";

export function AppHeader({ current }: { current: "sessions" | "inbox" }) {
  const { signOut } = useAuth();
  const { me } = useSignedIn();
  const { waiting, at_least } = useWaitingCount();
  const waitingLabel = at_least ? `${waiting}+` : String(waiting);
  useAttentionTitle(waiting, current === "inbox" ? "Inbox · Parley" : "Parley");
  return (
    <>
      <header className="app-header">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden>
            P
          </span>
          <span className="brand-name">Parley</span>
        </Link>
        <nav className="app-nav" aria-label="Main">
          <Link
            href="/"
            className={clsx("nav-link", current === "sessions" && "active")}
            aria-current={current === "sessions" ? "page" : undefined}
          >
            <MessagesSquare size={16} aria-hidden />
            <span>Sessions</span>
          </Link>
          {me.role === "admin" ? (
            <Link
              href="/admin"
              className={clsx("nav-link", current === "inbox" && "active")}
              aria-current={current === "inbox" ? "page" : undefined}
              data-testid="inbox-link"
            >
              <Inbox size={16} aria-hidden />
              <span>Inbox</span>
              {waiting > 0 ? (
                <span className="badge attention nav-count" data-testid="inbox-count">
                  <span aria-hidden>{waitingLabel}</span>
                  <span className="sr-only">, {at_least ? `at least ${waiting}` : waiting} waiting</span>
                </span>
              ) : null}
            </Link>
          ) : null}
        </nav>
        <div className="app-user">
          <KeyboardShortcuts />
          <NotificationToggle waiting={waiting} />
          <ThemeToggle />
          <span className="user-name" title={me.user_id}>
            {me.name}
            <span className="role-tag">{me.role}</span>
          </span>
          <button type="button" className="button ghost icon-text" onClick={signOut}>
            <LogOut size={16} aria-hidden />
            <span className="sign-out-label">Sign out</span>
          </button>
        </div>
      </header>
      <ConnectionBanner />
    </>
  );
}
