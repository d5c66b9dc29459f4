"use client";

import type { RespondInput } from "@parley/session-core";
import { ArrowLeft, Square } from "lucide-react";
import { useCallback, useMemo, useState } from "react";
import type { LiveSessionSummary } from "@/lib/live-session-summary";
import { type DisplayError, toDisplayError } from "@/lib/parley-api";
import {
  interactionEntries,
  isTurnRunning,
  orderedMessages,
  pendingInteractionCount,
} from "@/lib/session-state";
import { useSessionView } from "@/lib/use-session-view";
import { ApprovalModeControl } from "./approval-mode-control";
import { useSignedIn } from "./auth-provider";
import { Composer } from "./composer";
import { useNewInteractionAnnouncer } from "./interaction-announcer";
import { ErrorState, LoadingState } from "./states";
import { Timeline } from "./timeline";
import { usePublishLiveSummary } from "./use-publish-live-summary";

export function SessionView({
  session_id,
  onBack,
  onLiveSummary,
}: {
  session_id: string;
  onBack: () => void;
  /** Receives the open session's live state for the sidebar; null when this view goes away. */
  onLiveSummary: (summary: LiveSessionSummary | null) => void;
}) {
  const { api, me } = useSignedIn();
  const handle = useMemo(() => api.session(session_id), [api, session_id]);
  const { state, refreshStatus, loadOlder, resync, feedEnded, restart } = useSessionView(handle);
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);

  const messages = useMemo(() => orderedMessages(state), [state]);
  const entries = useMemo(() => interactionEntries(state), [state]);
  const pendingCount = useMemo(() => pendingInteractionCount(state), [state]);
  const running = isTurnRunning(state.turn);
  const closed = state.info?.state === "closed" || (state.info?.closed_at ?? null) !== null;
  const announcement = useNewInteractionAnnouncer(
    state.phase === "ready" ? entries.filter((entry) => entry.interaction.status === "pending") : null,
  );

  usePublishLiveSummary(state, onLiveSummary);

  const respond = useCallback(
    async (input: RespondInput): Promise<DisplayError | null> => {
      try {
        await handle.respond(input);
        return null;
      } catch (error) {
        const display = toDisplayError(error);
        // Answered elsewhere and this view missed it: show the server's truth next to the error.
        if (display.code === "interaction_not_pending") void resync();
        return display;
      }
    },
    [handle, resync],
  );

  async function stop() {
    setStopping(true);
    setStopError(null);
    try {
      await handle.stop();
    } catch (error) {
      setStopError(toDisplayError(error).message);
    } finally {
      setStopping(false);
    }
  }

  const nameOf = useCallback((user_id: string) => (user_id === me.user_id ? "you" : user_id), [me.user_id]);

  if (state.phase === "loading") {
    return (
      <div className="session-view">
        <LoadingState label="Loading session…" />
      </div>
    );
  }
  if (state.phase === "error") {
    return (
      <div className="session-view">
        <button type="button" className="button ghost back-button icon-text" onClick={onBack}>
          <ArrowLeft size={16} aria-hidden />
          <span>Sessions</span>
        </button>
        <ErrorState title="This session could not be opened" message={state.error ?? "Unknown error"} />
      </div>
    );
  }

  return (
    <div className="session-view">
      <header className="session-header">
        <button
          type="button"
          className="button ghost back-button icon-only"
          onClick={onBack}
          aria-label="Back to sessions"
        >
          <ArrowLeft size={18} aria-hidden />
        </button>
        <div className="session-heading">
          <h1 className="session-title">{state.info?.title || "Untitled session"}</h1>
          <p className="session-subtitle">
            <span className={`dot ${closed ? "closed" : running ? "running" : "idle"}`} aria-hidden />
            <span data-testid="turn-state">{closed ? "Closed" : running ? "Agent is working" : "Idle"}</span>
            {pendingCount > 0 ? (
              <span className="badge attention" data-testid="pending-count">
                {pendingCount} waiting for an answer
              </span>
            ) : null}
          </p>
        </div>
        <div className="session-actions">
          {state.security ? (
            <ApprovalModeControl
              security={state.security}
              disabled={closed}
              onChange={async (approval_mode) => {
                await handle.set({ security: { approval_mode } });
                await refreshStatus();
              }}
            />
          ) : null}
          {running && !closed ? (
            <button type="button" className="button danger icon-text" onClick={stop} disabled={stopping}>
              <Square size={14} aria-hidden fill="currentColor" />
              <span>{stopping ? "Stopping…" : "Stop"}</span>
            </button>
          ) : null}
        </div>
        {stopError ? (
          <p className="field-error header-error" role="alert">
            Stop failed: {stopError}
          </p>
        ) : null}
      </header>
      {feedEnded ? (
        <div className="feed-banner" role="alert">
          <span>Live updates stopped: {feedEnded}</span>
          <button type="button" className="button" onClick={restart}>
            Reconnect
          </button>
        </div>
      ) : null}
      <div className="sr-only" aria-live="polite" aria-atomic="true">
        {announcement}
      </div>
      <Timeline
        messages={messages}
        olderBeforeSequence={state.older_before_sequence}
        onLoadOlder={loadOlder}
        onRespond={respond}
        nameOf={nameOf}
        running={running}
      />
      <Composer
        disabled={closed}
        disabledReason={closed ? "This session is closed." : null}
        onSend={async (query) => {
          await handle.prompt(query);
        }}
      />
    </div>
  );
}
