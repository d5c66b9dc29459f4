"use client";

import { ArrowUpRight, Clock, Loader2, RotateCcw, X } from "lucide-react";
import type { OutboxItem } from "@/lib/outbox";

/** The person's messages not yet in the timeline: held while a request waits, or being sent. */
export function OutboxList({
  items,
  onCancel,
  onRetry,
  onJumpToRequest,
}: {
  items: readonly OutboxItem[];
  onCancel: (local_id: string) => void;
  onRetry: (local_id: string) => void;
  /** Set while a request of this session waits for a person. */
  onJumpToRequest: (() => void) | null;
}) {
  if (items.length === 0) return null;
  return (
    <ol className="outbox" aria-label="Messages not sent yet">
      {items.map((item) => (
        <li key={item.local_id} className={`outbox-item ${item.status}`} data-testid="queued-message">
          <div className="outbox-text">{item.text}</div>
          <div className="outbox-meta">
            {item.status === "held" ? (
              <span className="icon-text" data-testid="queued-status">
                <Clock size={13} aria-hidden />
                Queued — sends when the waiting request is answered
              </span>
            ) : item.status === "sending" ? (
              <span className="icon-text" data-testid="queued-status">
                <Loader2 size={13} aria-hidden className="spin" />
                Sending…
              </span>
            ) : (
              <span className="field-error" role="alert">
                Not sent: {item.error}
              </span>
            )}
            {item.status === "held" && onJumpToRequest ? (
              <button type="button" className="button ghost small icon-text" onClick={onJumpToRequest}>
                <ArrowUpRight size={13} aria-hidden />
                Jump to the request
              </button>
            ) : null}
            {item.status === "failed" ? (
              <button
                type="button"
                className="button ghost small icon-text"
                onClick={() => onRetry(item.local_id)}
              >
                <RotateCcw size={13} aria-hidden />
                Retry
              </button>
            ) : null}
            {item.status !== "sending" ? (
              <button
                type="button"
                className="button ghost small icon-text"
                onClick={() => onCancel(item.local_id)}
              >
                <X size={13} aria-hidden />
                Cancel
              </button>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
