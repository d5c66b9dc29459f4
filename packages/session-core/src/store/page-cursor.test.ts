import { describe, expect, it } from "vitest";
import { ParleyError } from "../errors.js";
import { decodePageCursor, encodePageCursor } from "./page-cursor.js";

function decodeError(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("page cursors", () => {
  const session = { created_at: 1_764_000_000_123, session_id: "session:ü/+" };
  const interaction = { pending: false, at: 5, interaction_id: "interaction:x" };

  it("round-trip session and interaction positions as base64url without padding", () => {
    const sessions = encodePageCursor("sessions", session);
    const interactions = encodePageCursor("interactions", interaction);
    expect(sessions).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageCursor("sessions", sessions)).toStrictEqual(session);
    expect(decodePageCursor("interactions", interactions)).toStrictEqual(interaction);
  });

  it("encode equal positions alike, whatever their key order", () => {
    expect(
      encodePageCursor("sessions", { session_id: session.session_id, created_at: session.created_at }),
    ).toBe(encodePageCursor("sessions", session));
  });

  it("refuse garbage, truncated, edited and foreign cursors as invalid_input", () => {
    const sessions = encodePageCursor("sessions", session);
    const edited = `${sessions.slice(0, -2)}${sessions.at(-2) === "A" ? "B" : "A"}${sessions.at(-1)}`;
    const json = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "");
    for (const cursor of [
      "",
      "%%%",
      "not a cursor",
      sessions.slice(0, -3),
      sessions.slice(1),
      edited,
      `${sessions}=`,
      encodePageCursor("interactions", interaction),
      json({ list: "sessions", position: { created_at: "1", session_id: "session:a" } }),
      json({ list: "sessions", position: { created_at: 1, session_id: "session:a", extra: 1 } }),
      json({ list: "sessions", position: { created_at: 1 } }),
      json({ created_at: 1, session_id: "session:a" }),
      json(null),
      json([1, 2]),
    ]) {
      const error = decodeError(() => decodePageCursor("sessions", cursor));
      expect(error, cursor).toBeInstanceOf(ParleyError);
      expect((error as ParleyError).code).toBe("invalid_input");
    }
    const error = decodeError(() => decodePageCursor("interactions", sessions));
    expect((error as ParleyError).code).toBe("invalid_input");
  });
});
