"use client";

import Link from "next/link";
import { formatRelativeTime } from "@/lib/format-time";
import { describeOutcome } from "@/lib/interaction-view";
import type { AdminInboxItem } from "@/lib/parley-api";
import { EmptyState } from "./states";

/** The inbox's "Recently answered" list: who answered what, in which session, how long ago. */
export function AdminInboxAnswered({
  answered,
  now,
  nameOf,
}: {
  answered: readonly AdminInboxItem[];
  now: number;
  nameOf: (user_id: string) => string;
}) {
  return (
    <section aria-labelledby="answered-heading" className="inbox-section">
      <h2 id="answered-heading">Recently answered</h2>
      {answered.length === 0 ? (
        <EmptyState title="No answers yet" />
      ) : (
        <ul className="answered-list">
          {answered.map((item) => (
            <li key={item.interaction.interaction_id} className="answered-row" data-testid="answered-row">
              <span className={`status-pill status-${item.interaction.status}`}>
                {describeOutcome(item.interaction, nameOf)}
              </span>
              <span className="answered-what">
                {item.interaction.interaction_type === "approval"
                  ? item.tool_name || "tool call"
                  : (item.interaction.request.title ?? "question")}
              </span>
              <Link href={`/?session=${encodeURIComponent(item.session_id)}`} className="muted link">
                {item.session_title || item.session_id}
              </Link>
              <span className="muted small">
                {item.interaction.resolved_at ? formatRelativeTime(item.interaction.resolved_at, now) : ""}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
