import type { AdminInboxItem, AdminInteractionEvent } from "./parley-api";

/**
 * The admin inbox: every pending Interaction across sessions plus the recently answered ones.
 * Same sync protocol as a session view: subscribe and buffer, load the lists, apply the buffer;
 * events are deduplicated by their global `event_id`. A `created` event for a session the inbox
 * has not seen yet carries no title or owner, so those rows show the ids until `needs_refresh`
 * makes the caller reload the lists. A reload that raced with a live event must not bring an
 * answered row back: `ended_ids` remembers every Interaction the feed reported as ended.
 */
export interface AdminInboxState {
  readonly phase: "loading" | "ready" | "error";
  readonly error?: string;
  readonly pending: ReadonlyMap<string, AdminInboxItem>;
  /** Newest answer first. */
  readonly answered: readonly AdminInboxItem[];
  readonly last_event_id: number;
  readonly buffer: readonly AdminInteractionEvent[];
  readonly needs_refresh: boolean;
  readonly ended_ids: ReadonlySet<string>;
}

export const RECENTLY_ANSWERED_LIMIT = 20;

export type AdminInboxAction =
  | { type: "event"; event: AdminInteractionEvent }
  | { type: "loaded"; pending: readonly AdminInboxItem[]; answered: readonly AdminInboxItem[] }
  | { type: "error"; message: string };

export function createAdminInboxState(): AdminInboxState {
  return {
    phase: "loading",
    pending: new Map(),
    answered: [],
    last_event_id: 0,
    buffer: [],
    needs_refresh: false,
    ended_ids: new Set(),
  };
}

export function adminInboxReducer(state: AdminInboxState, action: AdminInboxAction): AdminInboxState {
  switch (action.type) {
    case "event":
      if (state.phase !== "ready") return { ...state, buffer: [...state.buffer, action.event] };
      return applyEvent(state, action.event);
    case "loaded": {
      const pending = new Map<string, AdminInboxItem>();
      for (const item of action.pending) {
        const id = item.interaction.interaction_id;
        if (item.interaction.status === "pending" && !state.ended_ids.has(id)) pending.set(id, item);
      }
      const answered = new Map<string, AdminInboxItem>();
      for (const item of [...state.answered, ...action.answered]) {
        answered.set(item.interaction.interaction_id, item);
      }
      let next: AdminInboxState = {
        phase: "ready",
        pending,
        answered: newestAnswerFirst([...answered.values()]).slice(0, RECENTLY_ANSWERED_LIMIT),
        last_event_id: state.last_event_id,
        buffer: [],
        needs_refresh: false,
        ended_ids: state.ended_ids,
      };
      for (const event of state.buffer) next = applyEvent(next, event);
      return next;
    }
    case "error":
      return { ...state, phase: "error", error: action.message };
  }
}

function applyEvent(state: AdminInboxState, event: AdminInteractionEvent): AdminInboxState {
  if (event.event_id <= state.last_event_id) return state;
  const id = event.interaction.interaction_id;
  const known =
    state.pending.get(id) ?? state.answered.find((item) => item.interaction.interaction_id === id);
  const sibling = findSessionRow(state, event.session_id);
  const item: AdminInboxItem = {
    session_id: event.session_id,
    session_title: known?.session_title ?? sibling?.session_title ?? event.session_id,
    owner_id: known?.owner_id ?? sibling?.owner_id ?? "",
    owner_name: known?.owner_name ?? sibling?.owner_name ?? null,
    tool_name: event.interaction.request.source.tool_name ?? known?.tool_name ?? "",
    tool_call_id: event.interaction.request.source.tool_call_id,
    created_at: event.interaction.request.created_at,
    interaction: event.interaction,
  };
  const pending = new Map(state.pending);
  const advanced = { ...state, last_event_id: event.event_id };
  if (event.kind === "created") {
    if (known && known.interaction.status !== "pending") return advanced;
    pending.set(id, known ? { ...known, interaction: event.interaction } : item);
    return { ...advanced, pending, needs_refresh: state.needs_refresh || (!known && !sibling) };
  }
  pending.delete(id);
  const ended_ids = new Set(state.ended_ids).add(id);
  if (event.kind === "cancelled" || event.kind === "failed") return { ...advanced, pending, ended_ids };
  const answered = [item, ...state.answered.filter((row) => row.interaction.interaction_id !== id)];
  return { ...advanced, pending, ended_ids, answered: answered.slice(0, RECENTLY_ANSWERED_LIMIT) };
}

function findSessionRow(state: AdminInboxState, session_id: string): AdminInboxItem | undefined {
  for (const item of state.pending.values()) if (item.session_id === session_id) return item;
  return state.answered.find((item) => item.session_id === session_id);
}

function newestAnswerFirst(items: readonly AdminInboxItem[]): AdminInboxItem[] {
  return [...items]
    .filter((item) => item.interaction.status === "resolved" || item.interaction.status === "denied")
    .sort((a, b) => (b.interaction.resolved_at ?? 0) - (a.interaction.resolved_at ?? 0));
}

export interface InboxFilters {
  readonly type: string;
  readonly tool: string;
  readonly session: string;
  /** Minimum age in milliseconds; 0 = any. */
  readonly min_age_ms: number;
}

export const noFilters: InboxFilters = { type: "", tool: "", session: "", min_age_ms: 0 };

/** Pending rows that pass the filters, oldest first (the one waiting longest is answered first). */
export function filteredPending(
  state: AdminInboxState,
  filters: InboxFilters,
  now: number,
): AdminInboxItem[] {
  return (
    [...state.pending.values()]
      .filter((item) => !filters.type || item.interaction.interaction_type === filters.type)
      .filter((item) => !filters.tool || item.tool_name === filters.tool)
      .filter((item) => !filters.session || item.session_id === filters.session)
      // "Any age" passes every row: a row created after the clock's last tick has a negative age.
      .filter((item) => filters.min_age_ms === 0 || now - item.created_at >= filters.min_age_ms)
      .sort((a, b) => a.created_at - b.created_at)
  );
}

const AGE_VALUES = new Set([0, 60_000, 600_000, 3_600_000]);

/** The filters kept in the inbox URL (`?type=&tool=&session=&age=`), so a filtered view can be shared. */
export function filtersFromSearch(params: { get(name: string): string | null }): InboxFilters {
  const age = Number(params.get("age") ?? "0");
  return {
    type: params.get("type") ?? "",
    tool: params.get("tool") ?? "",
    session: params.get("session") ?? "",
    min_age_ms: AGE_VALUES.has(age) ? age : 0,
  };
}

export function filtersToSearch(filters: InboxFilters): string {
  const params = new URLSearchParams();
  if (filters.type) params.set("type", filters.type);
  if (filters.tool) params.set("tool", filters.tool);
  if (filters.session) params.set("session", filters.session);
  if (filters.min_age_ms) params.set("age", String(filters.min_age_ms));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function hasFilters(filters: InboxFilters): boolean {
  return Boolean(filters.type || filters.tool || filters.session || filters.min_age_ms);
}

/** Rows shown per inbox page; "Show more" adds another page. */
export const INBOX_PAGE_SIZE = 25;

/** The values each filter can take, from the rows currently pending. */
export function filterChoices(state: AdminInboxState): {
  types: string[];
  tools: string[];
  sessions: { session_id: string; title: string }[];
} {
  const rows = [...state.pending.values()];
  const sessions = new Map<string, string>();
  for (const row of rows) sessions.set(row.session_id, row.session_title);
  return {
    types: [...new Set(rows.map((row) => row.interaction.interaction_type))].sort(),
    tools: [...new Set(rows.map((row) => row.tool_name).filter(Boolean))].sort(),
    sessions: [...sessions].map(([session_id, title]) => ({ session_id, title })),
  };
}

/** Session owners' names the inbox has seen, so "answered by" can name an owner who answered. */
export function knownOwnerNames(state: AdminInboxState): Map<string, string> {
  const names = new Map<string, string>();
  for (const item of [...state.pending.values(), ...state.answered]) {
    if (item.owner_name) names.set(item.owner_id, item.owner_name);
  }
  return names;
}
