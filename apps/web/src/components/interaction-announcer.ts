"use client";

import { useEffect, useRef, useState } from "react";
import type { InteractionEntry } from "@/lib/session-state";

/**
 * Text for an aria-live region: announces Interactions that became pending after the first load,
 * so a screen-reader user hears a new approval or question without hunting for it.
 */
export function useNewInteractionAnnouncer(pending: readonly InteractionEntry[] | null): string {
  const seen = useRef<Set<string> | null>(null);
  const [message, setMessage] = useState("");
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
