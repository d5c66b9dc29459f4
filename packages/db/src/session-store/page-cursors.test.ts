import { ParleyError } from "@parley/session-core";
import { describe, expect, it } from "vitest";
import { decodeInteractionCursor, decodeSessionCursor, encodeCursor } from "./page-cursors.js";

describe("page cursors", () => {
  it("round-trip session and interaction positions", () => {
    const session = { created_at: 1_764_000_000_123, session_id: "session:ü" };
    expect(decodeSessionCursor(encodeCursor(session))).toStrictEqual(session);
    const interaction = { pending: false, at: 5, interaction_id: "interaction:x" };
    expect(decodeInteractionCursor(encodeCursor(interaction))).toStrictEqual(interaction);
  });

  it("reject a forged or foreign cursor as invalid_input", () => {
    const foreign = encodeCursor({ created_at: 1, session_id: "session:a" });
    for (const attempt of [
      () => decodeInteractionCursor(foreign),
      () => decodeSessionCursor("%%%"),
      () => decodeSessionCursor(""),
    ]) {
      let caught: unknown;
      try {
        attempt();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ParleyError);
      expect((caught as ParleyError).code).toBe("invalid_input");
    }
  });
});
