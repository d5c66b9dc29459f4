"use client";

import clsx from "clsx";
import { Inbox, LogOut, MessagesSquare } from "lucide-react";
import Link from "next/link";
import { useAuth, useSignedIn } from "./auth-provider";

export function AppHeader({ current }: { current: "sessions" | "inbox" }) {
  const { signOut } = useAuth();
  const { me } = useSignedIn();
  return (
    <header className="app-header">
      <Link href="/" className="brand" aria-label="Parley home">
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
          >
            <Inbox size={16} aria-hidden />
            <span>Inbox</span>
          </Link>
        ) : null}
      </nav>
      <div className="app-user">
        <span className="user-name" title={me.user_id}>
          {me.name}
          <span className="role-tag">{me.role}</span>
        </span>
        <button type="button" className="button ghost icon-text" onClick={signOut}>
          <LogOut size={16} aria-hidden />
          <span>Sign out</span>
        </button>
      </div>
    </header>
  );
}
