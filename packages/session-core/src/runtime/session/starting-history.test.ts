import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../schema/messages.js";
import { StartingHistory } from "./starting-history.js";

const messages = [{ message_id: "user:1" }] as unknown as SessionMessage[];

describe("StartingHistory", () => {
  it("gives the kept messages to their Turn's first take only", () => {
    const history = new StartingHistory();
    history.keep("turn:1", messages);
    expect(history.take("turn:1")).toBe(messages);
    expect(history.take("turn:1")).toBeUndefined();
  });

  it("a take for another Turn gets nothing and drops what was kept", () => {
    const history = new StartingHistory();
    history.keep("turn:1", messages);
    expect(history.take("turn:2")).toBeUndefined();
    expect(history.take("turn:1")).toBeUndefined();
  });
});
