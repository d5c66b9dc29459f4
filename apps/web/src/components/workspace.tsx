"use client";

import { useQueryClient } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useState } from "react";
import type { LiveSessionSummary } from "@/lib/live-session-summary";
import { AppHeader } from "./app-header";
import { useSignedIn } from "./auth-provider";
import { useConnection } from "./connection-provider";
import { ExamplePrompts } from "./example-prompts";
import { ControlError } from "./form-fields";
import { RequireSignIn } from "./require-sign-in";
import { SESSIONS_QUERY_KEY, SessionSidebar } from "./session-sidebar";
import { SessionView } from "./session-view";
import { useAsyncAction } from "./use-async-action";

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
  const [createdId, setCreatedId] = useState<string | null>(null);
  const select = useCallback(
    (session_id: string | null, options?: { created?: boolean }) => {
      setCreatedId(options?.created && session_id ? session_id : null);
      router.push(session_id ? `/?session=${encodeURIComponent(session_id)}` : "/");
    },
    [router],
  );
  const [live, setLive] = useState<LiveSessionSummary | null>(null);
  return (
    <div className="app-frame">
      <AppHeader current="sessions" />
      <div className="workspace" data-has-session={selected ? "true" : "false"}>
        <SessionSidebar selected={selected} onSelect={select} live={live} />
        <main className="workspace-main" id="main" tabIndex={-1}>
          {selected ? (
            // Keyed by id: switching sessions unmounts the old view (unsubscribe, drop its cards).
            <SessionView
              key={selected}
              session_id={selected}
              onBack={() => select(null)}
              onLiveSummary={setLive}
              focusComposer={createdId === selected}
            />
          ) : (
            <Welcome onOpen={(session_id) => select(session_id, { created: true })} />
          )}
        </main>
      </div>
    </div>
  );
}

/** The first screen: what Parley is, and prompts that start a session in one click. */
function Welcome({ onOpen }: { onOpen: (session_id: string) => void }) {
  const { api } = useSignedIn();
  const { online } = useConnection();
  const queryClient = useQueryClient();
  const {
    busy,
    error,
    apply: start,
  } = useAsyncAction(async (prompt: string) => {
    const info = await api.createSession({});
    // Not awaited: the prompt is durable once accepted, and the view shows it as it lands.
    void api.session(info.session_id).prompt({ query: prompt });
    await queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
    onOpen(info.session_id);
  });

  return (
    <div className="welcome" data-testid="welcome">
      <h1>Work with an agent, stay in charge</h1>
      <p className="welcome-lead">
        Parley runs an AI agent in a session of its own. It can read files, write them and run commands in its
        workspace, and it <strong>asks you before anything that changes something</strong>. Requests that need
        you show up in the conversation
        {" and in the Inbox"}, and you can answer them from anywhere.
      </p>
      <ul className="welcome-points">
        <li>
          <ShieldCheck size={15} aria-hidden /> Approve or deny each file change and command, with a diff.
        </li>
        <li>
          <ShieldCheck size={15} aria-hidden /> Answer the agent's questions in a form.
        </li>
        <li>
          <ShieldCheck size={15} aria-hidden /> Press <kbd>?</kbd> for keyboard shortcuts.
        </li>
      </ul>
      <h2 className="welcome-try">Try one — it starts a new session</h2>
      <ExamplePrompts disabled={busy || !online} onPick={(prompt) => void start(prompt)} />
      <p className="muted small">Or name a session on the left and press Create.</p>
      <ControlError message={error} />
    </div>
  );
}
