"use client";

import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { formatRelativeTime } from "@/lib/format-time";
import type { AdminInboxItem } from "@/lib/parley-api";

/** A pending row's context above its card: selection (approvals), session, owner, age, a link. */
export function AdminInboxRowContext({
  item,
  now,
  selected,
  onSelect,
}: {
  item: AdminInboxItem;
  now: number;
  selected: boolean;
  onSelect: (selected: boolean) => void;
}) {
  const title = item.session_title || item.session_id;
  return (
    <p className="row-context">
      {item.interaction.interaction_type === "approval" ? (
        <label className="row-select">
          <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.target.checked)} />
          <span className="sr-only">Select this request in {title}</span>
        </label>
      ) : null}
      <span>
        Session <strong>{title}</strong>
      </span>
      <span aria-hidden>·</span>
      <span>owner {item.owner_name ?? "unknown user"}</span>
      <span aria-hidden>·</span>
      <span>asked {formatRelativeTime(item.created_at, Math.max(now, item.created_at))}</span>
      <Link className="link icon-text" href={`/?session=${encodeURIComponent(item.session_id)}`}>
        <ExternalLink size={13} aria-hidden />
        Open session
      </Link>
    </p>
  );
}
