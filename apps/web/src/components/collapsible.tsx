"use client";

import { ChevronDown, ChevronUp } from "lucide-react";
import { type ReactNode, useState } from "react";

/** Lines past which long output starts collapsed. */
export const COLLAPSE_LINES = 18;

/** Long content shows its first lines with a "Show all" toggle; short content shows as is. */
export function Collapsible({ lines, children }: { lines: number; children: ReactNode }) {
  const long = lines > COLLAPSE_LINES;
  const [open, setOpen] = useState(false);
  if (!long) return <>{children}</>;
  return (
    <div className={open ? "collapsible open" : "collapsible"}>
      <div className="collapsible-body">{children}</div>
      <button
        type="button"
        className="button ghost small icon-text collapsible-toggle"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {open ? <ChevronUp size={13} aria-hidden /> : <ChevronDown size={13} aria-hidden />}
        {open ? "Show less" : `Show all ${lines} lines`}
      </button>
    </div>
  );
}
