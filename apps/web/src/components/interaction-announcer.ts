"use client";

import { useEffect, useRef, useState } from "react";
import type { InteractionEntry } from "@/lib/session-state";

/**
 * Text for an aria-live region: announces Interactions that became pending after the first load,
 * so a screen-reader user hears a new approval or question without hunting for it.
 */
export function useNewInteractionAnnouncer(
  pending: readonly InteractionEntry[] | null,
  /** Called after render with the newest request that just appeared (to move focus to it). */
  onFresh?: (entry: InteractionEntry) => void,
): string {
  const seen = useRef<Set<string> | null>(null);
  const [message, setMessage] = useState("");
  const onFreshRef = useRef(onFresh);
  onFreshRef.current = onFresh;
  useEffect(() => {
    if (pending === null) return;
    const ids = pending.map((entry) => entry.interaction.interaction_id);
    if (seen.current === null) {
      seen.current = new Set(ids);
      return;
    }
    const fresh = pending.filter((entry) => !seen.current?.has(entry.interaction.interaction_id));
    for (const id of ids) seen.current.add(id);
    if (fresh.length === 0) return;
    const newest = fresh[fresh.length - 1];
    if (newest) window.requestAnimationFrame(() => onFreshRef.current?.(newest));
    setMessage(
      fresh
        .map((entry) =>
          entry.interaction.interaction_type === "approval"
            ? `Approval needed for ${entry.tool.tool_name}.`
            : `The agent asks ${entry.interaction.request.title ? `"${entry.interaction.request.title}"` : "a question"}.`,
        )
        .join(" "),
    );
  }, [pending]);
  return message;
}
