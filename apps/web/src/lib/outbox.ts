/**
 * Messages the person sent that the server has not accepted yet. The composer never waits on the
 * server: a message goes here at once and is sent as a prompt with its `request_id` (a retry adds
 * nothing). It is `held` only while the browser is offline (Cancel then really cancels it), then
 * `sending` until the server accepts it. Once accepted it leaves the outbox: it is in the timeline,
 * or queued on the server behind a running or waiting Turn, where every client lists it
 * (`useQueuedPrompts`) and Cancel withdraws it there.
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

/** The held items to send now: all of them, oldest first, once the browser is online. */
export function releasable(items: readonly OutboxItem[], online: boolean): OutboxItem[] {
  return online ? items.filter((item) => item.status === "held") : [];
}
