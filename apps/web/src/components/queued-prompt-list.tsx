"use client";

import { ArrowUpRight, Clock, X } from "lucide-react";
import { useState } from "react";
import type { QueuedPrompt } from "@/lib/parley-api";

/**
 * The prompts queued on the server behind this session's Turn (every client shows the same list).
 * Cancel withdraws one on the server; a prompt its Turn took first stays and shows in the timeline.
 */
export function QueuedPromptList({
  items,
  waitingForPerson,
  onWithdraw,
  onJumpToRequest,
}: {
  items: readonly QueuedPrompt[];
  /** A request of this session waits for a person: the queue moves once it is answered. */
  waitingForPerson: boolean;
  /** Resolves to an error message to show, or null. */
  onWithdraw: (request_id: string) => Promise<string | null>;
  onJumpToRequest: (() => void) | null;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ request_id: string; message: string } | null>(null);
  if (items.length === 0) return null;

  async function withdraw(request_id: string) {
    setBusy(request_id);
    setError(null);
    const message = await onWithdraw(request_id);
    setBusy(null);
    if (message !== null) setError({ request_id, message });
  }

  return (
    <ol className="outbox" aria-label="Queued messages">
      {items.map((item, index) => (
        <li
          key={item.request_id ?? `${item.created_at}:${index}`}
          className="outbox-item held"
          data-testid="queued-message"
        >
          <div className="outbox-text">{item.query}</div>
          <div className="outbox-meta">
            <span className="icon-text" data-testid="queued-status">
              <Clock size={13} aria-hidden />
              {waitingForPerson
                ? "Queued — runs when the waiting request is answered"
                : "Queued — joins the running turn at its next step"}
            </span>
            {waitingForPerson && onJumpToRequest ? (
              <button type="button" className="button ghost small icon-text" onClick={onJumpToRequest}>
                <ArrowUpRight size={13} aria-hidden />
                Jump to the request
              </button>
            ) : null}
            {item.request_id !== null ? (
              <button
                type="button"
                className="button ghost small icon-text"
                disabled={busy === item.request_id}
                onClick={() => item.request_id !== null && void withdraw(item.request_id)}
              >
                <X size={13} aria-hidden />
                Cancel
              </button>
            ) : null}
            {error?.request_id === item.request_id ? (
              <span className="field-error" role="alert">
                {error.message}
              </span>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
