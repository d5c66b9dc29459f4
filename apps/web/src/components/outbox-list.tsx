"use client";

import { Clock, Loader2, RotateCcw, X } from "lucide-react";
import type { ReactNode } from "react";
import type { OutboxItem } from "@/lib/outbox";

/** One of a held message's small buttons (Retry, Cancel). */
function OutboxAction({
  icon,
  onClick,
  children,
}: {
  icon: ReactNode;
  onClick: () => void;
  children: string;
}) {
  return (
    <button type="button" className="button ghost small icon-text" onClick={onClick}>
      {icon}
      {children}
    </button>
  );
}

/** The person's messages the server has not accepted yet: held while offline, or being sent. */
export function OutboxList({
  items,
  onCancel,
  onRetry,
}: {
  items: readonly OutboxItem[];
  onCancel: (local_id: string) => void;
  onRetry: (local_id: string) => void;
}) {
  if (items.length === 0) return null;
  return (
    <ol className="outbox" aria-label="Messages not sent yet">
      {items.map((item) => (
        <li key={item.local_id} className={`outbox-item ${item.status}`} data-testid="outbox-message">
          <div className="outbox-text">{item.text}</div>
          <div className="outbox-meta">
            {item.status === "held" ? (
              <span className="icon-text" data-testid="outbox-status">
                <Clock size={13} aria-hidden />
                Not sent yet — sends when the connection is back
              </span>
            ) : item.status === "sending" ? (
              <span className="icon-text" data-testid="outbox-status">
                <Loader2 size={13} aria-hidden className="spin" />
                Sending…
              </span>
            ) : (
              <span className="field-error" role="alert">
                Not sent: {item.error}
              </span>
            )}
            {item.status === "failed" ? (
              <OutboxAction icon={<RotateCcw size={13} aria-hidden />} onClick={() => onRetry(item.local_id)}>
                Retry
              </OutboxAction>
            ) : null}
            {item.status !== "sending" ? (
              <OutboxAction icon={<X size={13} aria-hidden />} onClick={() => onCancel(item.local_id)}>
                Cancel
              </OutboxAction>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
