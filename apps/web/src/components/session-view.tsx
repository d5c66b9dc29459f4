"use client";

import type { RespondInput, SessionSetInput } from "@parley/sdk";
import { useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, Square } from "lucide-react";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { focusComposerOrMain, focusFirstPendingRequest } from "@/lib/focus";
import type { LiveSessionSummary } from "@/lib/live-session-summary";
import { type OutboxItem, outboxReducer, releasable } from "@/lib/outbox";
import { type DisplayError, toDisplayError } from "@/lib/parley-api";
import {
  interactionEntries,
  isTurnRunning,
  orderedMessages,
  pendingInteractionCount,
} from "@/lib/session-state";
import { useModels } from "@/lib/use-models";
import { useQueuedPrompts } from "@/lib/use-queued-prompts";
import { useSessionView } from "@/lib/use-session-view";
import { useUserNames } from "@/lib/use-user-names";
import { ApprovalModeControl } from "./approval-mode-control";
import { useSignedIn } from "./auth-provider";
import { CloseSessionButton } from "./close-session-button";
import { Composer } from "./composer";
import { useConnection } from "./connection-provider";
import { useNewInteractionAnnouncer } from "./interaction-announcer";
import { ModelControl } from "./model-control";
import { OutboxList } from "./outbox-list";
import { QueuedPromptList } from "./queued-prompt-list";
import { SESSIONS_QUERY_KEY } from "./session-sidebar";
import { SessionTitle } from "./session-title";
import { ErrorState, LoadingState } from "./states";
import { Timeline } from "./timeline";
import { ToolAllowanceControl } from "./tool-allowance-control";
import { usePublishLiveSummary } from "./use-publish-live-summary";

function newId(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

export function SessionView({
  session_id,
  onBack,
  onLiveSummary,
  focusComposer,
}: {
  session_id: string;
  onBack: () => void;
  /** Receives the open session's live state for the sidebar; null when this view goes away. */
  onLiveSummary: (summary: LiveSessionSummary | null) => void;
  /** Put the cursor in the composer once loaded (right after Create). */
  focusComposer?: boolean;
}) {
  const { api, me } = useSignedIn();
  const { online, check } = useConnection();
  const queryClient = useQueryClient();
  const handle = useMemo(() => api.session(session_id), [api, session_id]);
  const { state, refreshStatus, loadOlder, resync, feedEnded, restart } = useSessionView(handle);
  const { queued, reread: rereadQueue } = useQueuedPrompts(handle, state);
  const models = useModels(api);
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<string | null>(null);
  const [outbox, dispatchOutbox] = useReducer(outboxReducer, [] as readonly OutboxItem[]);
  const composerRef = useRef<HTMLTextAreaElement>(null);

  const messages = useMemo(() => orderedMessages(state), [state]);
  const entries = useMemo(() => interactionEntries(state), [state]);
  const pendingCount = useMemo(() => pendingInteractionCount(state), [state]);
  const running = isTurnRunning(state.turn);
  const closed = state.info?.state === "closed" || (state.info?.closed_at ?? null) !== null;
  const pendingEntries = useMemo(
    () =>
      state.phase === "ready" ? entries.filter((entry) => entry.interaction.status === "pending") : null,
    [entries, state.phase],
  );
  const announcement = useNewInteractionAnnouncer(pendingEntries, (fresh) => {
    // Focus moves to a new request, unless the person is typing somewhere (never steal the caret).
    const active = document.activeElement;
    const typing =
      active instanceof HTMLTextAreaElement ||
      (active instanceof HTMLInputElement && active.type !== "checkbox" && active.type !== "radio");
    if (typing) return;
    const card = document.querySelector<HTMLElement>(
      `[data-interaction-id="${CSS.escape(fresh.interaction.interaction_id)}"]`,
    );
    card?.focus({ preventScroll: false });
  });
  const nameOf = useUserNames(
    api,
    me,
    entries.flatMap((entry) => (entry.interaction.responded_by ? [entry.interaction.responded_by] : [])),
  );

  usePublishLiveSummary(state, onLiveSummary);

  // After Create: the cursor waits in the composer.
  useEffect(() => {
    if (focusComposer && state.phase === "ready") composerRef.current?.focus();
  }, [focusComposer, state.phase]);

  // Messages the timeline shows now leave the outbox (user messages not seen before).
  const seenUserMessages = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (state.phase !== "ready") return;
    const users = messages.filter((message) => message.type === "user");
    if (seenUserMessages.current === null) {
      seenUserMessages.current = new Set(users.map((message) => message.message_id));
      return;
    }
    const fresh = users.filter((message) => !seenUserMessages.current?.has(message.message_id));
    if (fresh.length === 0) return;
    for (const message of fresh) seenUserMessages.current.add(message.message_id);
    dispatchOutbox({
      type: "delivered",
      texts: fresh.map((message) =>
        message.type === "user" ? message.parts.map((part) => part.text).join("\n") : "",
      ),
    });
  }, [messages, state.phase]);

  const send = useCallback(
    (item: OutboxItem) => {
      dispatchOutbox({ type: "sending", local_id: item.local_id });
      handle.prompt({ query: item.text, request_id: item.request_id }).then(
        () => dispatchOutbox({ type: "sent", local_id: item.local_id }),
        (error: unknown) => {
          check();
          dispatchOutbox({ type: "failed", local_id: item.local_id, error: toDisplayError(error).message });
        },
      );
    },
    [handle, check],
  );

  // Messages held while offline go out once the connection is back.
  useEffect(() => {
    for (const item of releasable(outbox, online)) send(item);
  }, [outbox, online, send]);

  // Sent at once, also while a request waits: the server queues it behind the Turn, where every
  // client lists it and Cancel withdraws it (docs/behaviour.md#queued-prompts).
  const enqueue = useCallback(
    (text: string) => {
      const item = { local_id: newId(), request_id: newId(), text };
      dispatchOutbox({ type: "add", item, hold: !online });
      if (online) send({ ...item, status: "sending" });
    },
    [online, send],
  );

  const withdrawQueued = useCallback(
    async (request_id: string): Promise<string | null> => {
      try {
        const { status } = await handle.withdrawPrompt(request_id);
        rereadQueue();
        return status === "withdrawn" ? null : "Too late: the agent already took this message.";
      } catch (error) {
        check();
        return toDisplayError(error).message;
      }
    },
    [handle, check, rereadQueue],
  );

  const respond = useCallback(
    async (input: RespondInput): Promise<DisplayError | null> => {
      try {
        await handle.respond(input);
        return null;
      } catch (error) {
        const display = toDisplayError(error);
        if (display.code === null) check();
        // Answered elsewhere and this view missed it: show the server's truth next to the error.
        if (display.code === "interaction_not_pending") void resync();
        return display;
      }
    },
    [handle, resync, check],
  );

  /** A settings change (approval mode, allowances, model), then the status it changed read again. */
  async function applySettings(settings: SessionSetInput) {
    await handle.set(settings);
    await refreshStatus();
  }

  async function stop() {
    setStopping(true);
    setStopError(null);
    try {
      await handle.stop();
      // The Stop button goes away: the cursor goes to the composer, not to <body>.
      focusComposerOrMain();
    } catch (error) {
      check();
      setStopError(toDisplayError(error).message);
    } finally {
      setStopping(false);
    }
  }

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

  const turnText = closed ? "Closed" : !online ? "Offline" : running ? "Agent is working" : "Idle";
  return (
    <div className="session-view" data-session-id={session_id}>
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
          <SessionTitle
            title={state.info?.title ?? ""}
            editable={!closed && online}
            onRename={async (title) => {
              await handle.rename(title);
              void queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
            }}
          />
          <p className="session-subtitle">
            <span
              className={`dot ${closed ? "closed" : !online ? "offline" : running ? "running" : "idle"}`}
              aria-hidden
            />
            <span data-testid="turn-state">{turnText}</span>
            {pendingCount > 0 ? (
              <button
                type="button"
                className="badge attention badge-button"
                data-testid="pending-count"
                onClick={() => focusFirstPendingRequest()}
                aria-keyshortcuts="g"
              >
                {pendingCount} waiting for an answer
              </button>
            ) : null}
          </p>
        </div>
        <div className="session-actions">
          {state.security ? (
            <>
              <ApprovalModeControl
                security={state.security}
                running={running}
                disabled={closed || !online}
                onChange={(approval_mode) => applySettings({ security: { approval_mode } })}
              />
              <ToolAllowanceControl
                security={state.security}
                running={running}
                disabled={closed || !online}
                onChange={(tool_allowances) => applySettings({ security: { tool_allowances } })}
              />
            </>
          ) : null}
          {state.model && models.choices.length > 0 ? (
            <ModelControl
              model={state.model}
              choices={models.choices}
              labelOf={models.labelOf}
              running={running}
              disabled={closed || !online}
              onChange={(model_id) => applySettings({ model_id })}
            />
          ) : null}
          {running && !closed ? (
            <button
              type="button"
              className="button danger icon-text"
              onClick={stop}
              disabled={stopping || !online}
            >
              <Square size={14} aria-hidden fill="currentColor" />
              <span>{stopping ? "Stopping…" : "Stop"}</span>
            </button>
          ) : null}
          <CloseSessionButton
            closed={closed}
            disabled={!online}
            pendingCount={pendingCount}
            onClose={async () => {
              // The view turns read-only with the session's `closed` mutation.
              await handle.close();
              void queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
            }}
          />
        </div>
        {stopError ? (
          <p className="field-error header-error" role="alert">
            Stop failed: {stopError}
          </p>
        ) : null}
      </header>
      {feedEnded ? (
        <div className="banner feed-banner" role="alert">
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
        onExample={closed ? undefined : enqueue}
        setup={{
          workspace_id: state.info?.workspace_id ?? null,
          always_allow: state.security?.approval_mode === "always-allow",
        }}
      />
      <QueuedPromptList
        items={queued}
        waitingForPerson={pendingCount > 0}
        onWithdraw={withdrawQueued}
        onJumpToRequest={pendingCount > 0 ? () => focusFirstPendingRequest() : null}
      />
      <OutboxList
        items={outbox}
        onCancel={(local_id) => dispatchOutbox({ type: "cancel", local_id })}
        onRetry={(local_id) => {
          const item = outbox.find((candidate) => candidate.local_id === local_id);
          if (item) send(item);
        }}
      />
      <Composer
        inputRef={composerRef}
        disabled={closed}
        disabledReason={closed ? "This session is closed." : null}
        onSend={enqueue}
      />
    </div>
  );
}
