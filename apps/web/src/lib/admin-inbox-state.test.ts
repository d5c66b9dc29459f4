import type { Interaction } from "@parley/sdk";
import { describe, expect, it } from "vitest";
import {
  type AdminInboxState,
  adminInboxReducer,
  createAdminInboxState,
  filterChoices,
  filteredPending,
  filtersFromSearch,
  filtersToSearch,
  hasFilters,
  knownOwnerNames,
  noFilters,
} from "./admin-inbox-state";
import type { AdminInboxItem, AdminInteractionEvent } from "./parley-api";
import { inboxInteraction as interaction, inboxRow as row } from "./testing/inbox-rows";

const event = (
  event_id: number,
  kind: AdminInteractionEvent["kind"],
  session_id: string,
  value: Interaction,
) => ({
  type: "event" as const,
  event: { event_id, kind, session_id, interaction: value },
});

function load(pending: AdminInboxItem[], answered: AdminInboxItem[] = []): AdminInboxState {
  return adminInboxReducer(createAdminInboxState(), { type: "loaded", pending, answered });
}

describe("adminInboxReducer", () => {
  it("applies events buffered while loading and moves answered rows to the answered list", () => {
    let state = createAdminInboxState();
    state = adminInboxReducer(
      state,
      event(5, "resolved", "s1", interaction("i1", { status: "resolved", responded_by: "user:a" })),
    );
    expect(state.buffer).toHaveLength(1);
    state = adminInboxReducer(state, {
      type: "loaded",
      pending: [row("i1", "s1", 10), row("i2", "s1", 20)],
      answered: [],
    });
    expect([...state.pending.keys()]).toEqual(["i2"]);
    expect(
      state.answered.map((item) => [
        item.interaction.interaction_id,
        item.session_title,
        item.interaction.responded_by,
      ]),
    ).toEqual([["i1", "Title s1", "user:a"]]);
    expect(state.last_event_id).toBe(5);
  });

  it("adds created interactions live, reusing the session's known title, and dedupes by event_id", () => {
    let state = load([row("i1", "s1", 10)]);
    const created = event(7, "created", "s1", interaction("i3", {}, "shell", 30));
    state = adminInboxReducer(adminInboxReducer(state, created), created);
    expect([...state.pending.keys()]).toEqual(["i1", "i3"]);
    expect(state.pending.get("i3")?.session_title).toBe("Title s1");
    expect(state.needs_refresh).toBe(false);
    state = adminInboxReducer(state, event(8, "created", "s9", interaction("i4")));
    expect(state.pending.get("i4")?.session_title).toBe("s9");
    expect(state.needs_refresh).toBe(true);
  });

  it("drops cancelled interactions without listing them as answered", () => {
    let state = load([row("i1", "s1", 10)]);
    state = adminInboxReducer(state, event(2, "cancelled", "s1", interaction("i1", { status: "cancelled" })));
    expect(state.pending.size).toBe(0);
    expect(state.answered).toHaveLength(0);
  });

  it("lists pending oldest first and filters by type, tool, session and age", () => {
    const state = load([row("late", "s2", 300), row("early", "s1", 100), row("mid", "s1", 200)]);
    expect(filteredPending(state, noFilters, 1_000).map((item) => item.interaction.interaction_id)).toEqual([
      "early",
      "mid",
      "late",
    ]);
    expect(
      filteredPending(state, { ...noFilters, session: "s1" }, 1_000).map((i) => i.interaction.interaction_id),
    ).toEqual(["early", "mid"]);
    expect(
      filteredPending(state, { ...noFilters, min_age_ms: 750 }, 1_000).map(
        (i) => i.interaction.interaction_id,
      ),
    ).toEqual(["early", "mid"]);
    expect(filteredPending(state, { ...noFilters, tool: "shell" }, 1_000)).toEqual([]);
    expect(filteredPending(state, { ...noFilters, type: "question" }, 1_000)).toEqual([]);
    expect(filterChoices(state)).toEqual({
      types: ["approval"],
      tools: ["delete_file"],
      sessions: [
        { session_id: "s2", title: "Title s2" },
        { session_id: "s1", title: "Title s1" },
      ],
    });
  });

  it("keeps only answered rows in the recent list, newest first", () => {
    const state = load(
      [],
      [
        row("a", "s1", 1, { status: "resolved", resolved_at: 50 }),
        row("b", "s1", 2, { status: "denied", resolved_at: 90 }),
        row("c", "s1", 3, { status: "cancelled", resolved_at: 99 }),
      ],
    );
    expect(state.answered.map((item) => item.interaction.interaction_id)).toEqual(["b", "a"]);
  });

  it("knows the owners' names from the rows it holds", () => {
    const state = load(
      [row("i1", "s1", 10)],
      [{ ...row("i2", "s2", 5, { status: "resolved" }), owner_id: "user:x", owner_name: null }],
    );
    expect([...knownOwnerNames(state)]).toEqual([["user:m", "Mia"]]);
  });

  it("does not bring back a row the feed reported answered when a racing reload still lists it", () => {
    let state = load([row("i1", "s1", 10)]);
    state = adminInboxReducer(
      state,
      event(3, "resolved", "s1", interaction("i1", { status: "resolved", resolved_at: 40 })),
    );
    state = adminInboxReducer(state, {
      type: "loaded",
      pending: [row("i1", "s1", 10), row("i2", "s1", 20)],
      answered: [],
    });
    expect([...state.pending.keys()]).toEqual(["i2"]);
    expect(state.answered.map((item) => item.interaction.interaction_id)).toEqual(["i1"]);
  });
});

describe("inbox age filter and URL filters", () => {
  it("shows a row created after the clock's last tick under 'Any age' (negative age)", () => {
    let state = createAdminInboxState();
    state = adminInboxReducer(state, { type: "loaded", pending: [], answered: [] });
    state = adminInboxReducer(
      state,
      event(1, "created", "s1", interaction("fresh", {}, "write_file", 5_000)),
    );
    // The clock last ticked at 1_000; the row is 4 s "in the future" relative to it.
    expect(filteredPending(state, noFilters, 1_000).map((item) => item.interaction.interaction_id)).toEqual([
      "fresh",
    ]);
    expect(filteredPending(state, { ...noFilters, min_age_ms: 60_000 }, 1_000)).toEqual([]);
    expect(
      filteredPending(state, { ...noFilters, min_age_ms: 60_000 }, 65_000).map(
        (item) => item.interaction.interaction_id,
      ),
    ).toEqual(["fresh"]);
  });

  it("round-trips filters through the URL and ignores unknown ages", () => {
    const filters = { type: "approval", tool: "shell", session: "session:1", min_age_ms: 600_000 };
    const search = filtersToSearch(filters);
    expect(search).toBe("?type=approval&tool=shell&session=session%3A1&age=600000");
    expect(filtersFromSearch(new URLSearchParams(search))).toEqual(filters);
    expect(filtersToSearch(noFilters)).toBe("");
    expect(filtersFromSearch(new URLSearchParams("age=123"))).toEqual(noFilters);
    expect(hasFilters(noFilters)).toBe(false);
    expect(hasFilters({ ...noFilters, tool: "shell" })).toBe(true);
  });
});
