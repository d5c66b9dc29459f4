"use client";

import { MessagesSquare } from "lucide-react";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useState } from "react";
import type { LiveSessionSummary } from "@/lib/live-session-summary";
import { AppHeader } from "./app-header";
import { RequireSignIn } from "./require-sign-in";
import { SessionSidebar } from "./session-sidebar";
import { SessionView } from "./session-view";
import { EmptyState } from "./states";

export function Workspace() {
  return (
    <RequireSignIn>
      <WorkspaceLayout />
    </RequireSignIn>
  );
}

function WorkspaceLayout() {
  const selected = useSearchParams().get("session");
  const router = useRouter();
  const select = useCallback(
    (session_id: string | null) =>
      router.push(session_id ? `/?session=${encodeURIComponent(session_id)}` : "/"),
    [router],
  );
  const [live, setLive] = useState<LiveSessionSummary | null>(null);
  return (
    <div className="app-frame">
      <AppHeader current="sessions" />
      <div className="workspace" data-has-session={selected ? "true" : "false"}>
        <SessionSidebar selected={selected} onSelect={select} live={live} />
        <main className="workspace-main" id="main">
          {selected ? (
            // Keyed by id: switching sessions unmounts the old view (unsubscribe, drop its cards).
            <SessionView
              key={selected}
              session_id={selected}
              onBack={() => select(null)}
              onLiveSummary={setLive}
            />
          ) : (
            <div className="workspace-empty">
              <EmptyState title="No session selected">
                <MessagesSquare size={28} aria-hidden className="empty-icon" />
                <p>Pick a session on the left, or start a new one to talk to the agent.</p>
              </EmptyState>
            </div>
          )}
        </main>
      </div>
    </div>
  );
}
