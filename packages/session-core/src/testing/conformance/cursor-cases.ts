import { describe, expect, it } from "vitest";
import { buildInteraction, T0 } from "../fixtures.js";
import {
  assistantWithTools,
  type ConformanceContext,
  commitMessage,
  createSession,
  expectParleyCode,
  rejectionCode,
} from "./context.js";

/** Three sessions and three pending interactions, so that both paged lists have a next page at limit 1. */
async function seedTwoLists(
  context: ConformanceContext,
): Promise<{ sessions: string; interactions: string }> {
  for (const [index, session_id] of ["session:a", "session:b", "session:c"].entries()) {
    await createSession(context, session_id, { created_at: T0 + index });
    const interaction = buildInteraction({
      interaction_id: `interaction:${index}`,
      tool_call_id: `call_${index}`,
      created_at: T0 + index,
    });
    await commitMessage(
      context,
      assistantWithTools({
        session_id,
        message_id: `message:${index}`,
        sequence: 1,
        tools: [{ tool_call_id: `call_${index}`, interactions: [interaction] }],
      }),
    );
  }
  const sessions = (await context.store.listSessions({ limit: 1 })).next_cursor;
  const interactions = (await context.store.queryInteractions({ limit: 1 })).next_cursor;
  if (sessions === null || interactions === null) throw new Error("Both lists must have a second page");
  return { sessions, interactions };
}

/** Cursors that no store handed out: each must be refused as `invalid_input`, never a store failure. */
function badCursors(valid: string, foreign: string): [string, string][] {
  return [
    ["garbage", "not a cursor!"],
    ["base64 of garbage", btoa("{not json")],
    ["truncated base64", valid.slice(0, -3)],
    ["a cursor with its first character cut", valid.slice(1)],
    ["a cursor with padding appended", `${valid}==`],
    ["a cursor of the other list", foreign],
  ];
}

export function describeCursorConformance(context: ConformanceContext): void {
  describe("page cursors", () => {
    it("refuses a malformed, tampered or other-list cursor of listSessions as invalid_input", async () => {
      const cursors = await seedTwoLists(context);
      for (const [what, cursor] of badCursors(cursors.sessions, cursors.interactions)) {
        expect(await rejectionCode(context.store.listSessions({ cursor, limit: 1 })), what).toBe(
          "invalid_input",
        );
      }
      await expectParleyCode(
        context.store.listSessions({ owner_id: "user:owner", cursor: "%%%", limit: 1 }),
        "invalid_input",
      );
      const next = await context.store.listSessions({ cursor: cursors.sessions, limit: 5 });
      expect(next.items.map((item) => item.session_id)).toEqual(["session:b", "session:a"]);
    });

    it("refuses a malformed, tampered or other-list cursor of queryInteractions as invalid_input", async () => {
      const cursors = await seedTwoLists(context);
      for (const [what, cursor] of badCursors(cursors.interactions, cursors.sessions)) {
        for (const status of [undefined, "pending", "resolved"] as const) {
          const query = { cursor, limit: 1, ...(status ? { status } : {}) };
          expect(await rejectionCode(context.store.queryInteractions(query)), `${what}, ${status}`).toBe(
            "invalid_input",
          );
        }
      }
      const next = await context.store.queryInteractions({ cursor: cursors.interactions, limit: 5 });
      expect(next.items.map((item) => item.interaction.interaction_id)).toEqual([
        "interaction:1",
        "interaction:2",
      ]);
    });
  });
}
