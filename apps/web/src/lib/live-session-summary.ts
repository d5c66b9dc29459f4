import type { SessionInfo } from "@parley/sdk";
import { isTurnRunning, pendingInteractionCount, type SessionViewState } from "./session-state";

/**
 * What the sidebar shows for the session open in the view, taken from that view's live state: its
 * Turn (driven by `turn` mutations), its pending Interactions (from the tool parts) and its title.
 * The session list is a polled query whose answer can be older than the live feed; for the open
 * session the live feed wins, so the sidebar never keeps a state the feed already moved past.
 */
export interface LiveSessionSummary {
  readonly session_id: string;
  readonly title: string;
  readonly state: SessionInfo["state"];
  readonly pending_interactions: number;
}

/** The summary of a loaded view; null until its snapshot arrived (nothing published is known yet). */
export function summarizeSessionView(state: SessionViewState): LiveSessionSummary | null {
  if (state.phase !== "ready" || !state.info) return null;
  const closed = state.info.state === "closed" || state.info.closed_at !== null;
  return {
    session_id: state.session_id,
    title: state.info.title,
    state: closed ? "closed" : isTurnRunning(state.turn) ? "running" : "idle",
    pending_interactions: pendingInteractionCount(state),
  };
}

/** The list entry with the live summary laid over it when it is the same session. */
export function withLiveSummary(info: SessionInfo, live: LiveSessionSummary | null): SessionInfo {
  if (live === null || live.session_id !== info.session_id) return info;
  if (
    info.state === live.state &&
    info.pending_interactions === live.pending_interactions &&
    info.title === live.title
  ) {
    return info;
  }
  return { ...info, state: live.state, pending_interactions: live.pending_interactions, title: live.title };
}

export function isSameSummary(a: LiveSessionSummary | null, b: LiveSessionSummary | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.session_id === b.session_id &&
    a.title === b.title &&
    a.state === b.state &&
    a.pending_interactions === b.pending_interactions
  );
}
