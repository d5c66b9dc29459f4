import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../schema/messages.js";
import { StartingHistory } from "./starting-history.js";

const messages = [{ message_id: "user:1" }] as unknown as SessionMessage[];

describe("StartingHistory", () => {
  it("gives the kept messages to their Turn's first take under the same epoch only", () => {
    const history = new StartingHistory();
    history.keep("turn:1", 3, messages);
    expect(history.take("turn:1", 3)).toBe(messages);
    expect(history.take("turn:1", 3)).toBeUndefined();
    history.keep("turn:1", 3, messages);
    expect(history.take("turn:1", 4)).toBeUndefined();
    expect(history.take("turn:1", 3)).toBeUndefined();
  });

  it("a take for another Turn gets nothing and drops what was kept", () => {
    const history = new StartingHistory();
    history.keep("turn:1", 3, messages);
    expect(history.take("turn:2", 3)).toBeUndefined();
    expect(history.take("turn:1", 3)).toBeUndefined();
  });
});
