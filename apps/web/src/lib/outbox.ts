/**
 * Messages the person sent that the timeline does not show yet. The composer never waits on the
 * server: a message goes here at once. While a request of this session waits for a person it is
 * `held` (not sent, so Cancel really cancels it); otherwise, or once the request is answered, it is
 * `sending` until the server accepts it, and it leaves the outbox when its user message is
 * persisted (the timeline shows it then) or the prompt call returns.
 */
export interface OutboxItem {
  readonly local_id: string;
  /** Sent as the prompt's `request_id`, so a retry never adds a second user message. */
  readonly request_id: string;
  readonly text: string;
  readonly status: "held" | "sending" | "failed";
  readonly error?: string;
}

export type OutboxAction =
  | { type: "add"; item: Pick<OutboxItem, "local_id" | "request_id" | "text">; hold: boolean }
  | { type: "sending"; local_id: string }
  | { type: "sent"; local_id: string }
  | { type: "failed"; local_id: string; error: string }
  | { type: "cancel"; local_id: string }
  /** The timeline now shows these user texts: drop the oldest outbox item with each text once. */
  | { type: "delivered"; texts: readonly string[] };

export function outboxReducer(items: readonly OutboxItem[], action: OutboxAction): readonly OutboxItem[] {
  switch (action.type) {
    case "add":
      return [...items, { ...action.item, status: action.hold ? "held" : "sending" }];
    case "sending":
      return items.map((item) =>
        item.local_id === action.local_id ? { ...item, status: "sending" as const, error: undefined } : item,
      );
    case "failed":
      return items.map((item) =>
        item.local_id === action.local_id
          ? { ...item, status: "failed" as const, error: action.error }
          : item,
      );
    case "sent":
    case "cancel":
      return items.filter((item) => item.local_id !== action.local_id);
    case "delivered": {
      const remaining = [...action.texts];
      return items.filter((item) => {
        if (item.status !== "sending") return true;
        const index = remaining.indexOf(item.text);
        if (index === -1) return true;
        remaining.splice(index, 1);
        return false;
      });
    }
  }
}

/** The held items to send now: all of them, oldest first, once nothing waits for a person. */
export function releasable(items: readonly OutboxItem[], pendingRequests: number): OutboxItem[] {
  return pendingRequests > 0 ? [] : items.filter((item) => item.status === "held");
}
