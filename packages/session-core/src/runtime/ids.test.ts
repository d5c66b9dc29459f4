import { describe, expect, it } from "vitest";
import { createRandomIdSource, RuntimeIds } from "./ids.js";

describe("RuntimeIds", () => {
  const ids = new RuntimeIds(createRandomIdSource());

  it("mints a Turn's id in the reference's format: turn:<session_id>:<ms>:<6 characters>", () => {
    expect(ids.turn("session_abc", 1_765_000_000_000)).toMatch(
      /^turn:session_abc:1765000000000:[0-9A-Za-z_-]{6}$/,
    );
  });

  it("mints message ids under their session with 16 random characters", () => {
    expect(ids.assistantMessage("session_abc")).toMatch(/^assistant:session_abc:[0-9A-Za-z_-]{16}$/);
    expect(ids.userMessage("session_abc")).toMatch(/^user:session_abc:[0-9A-Za-z_-]{16}$/);
  });
});
