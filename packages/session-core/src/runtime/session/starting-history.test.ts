import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import type { SessionMessage } from "../../schema/messages.js";
import { StartingHistory } from "./starting-history.js";

const message = (message_id: string, sequence: number, revision = 1) =>
  ({ message_id, sequence, revision }) as unknown as SessionMessage;
const claim = { holder: "A", turn_id: "turn:1" };

describe("StartingHistory", () => {
  it("gives the kept messages to their Turn's first take under the same epoch only", () => {
    const history = new StartingHistory();
    const messages = [message("user:1", 1)];
    history.keep("turn:1", 3, messages);
    expect(history.take("turn:1", 3)).toBe(messages);
    expect(history.take("turn:1", 3)).toBeUndefined();
    history.keep("turn:1", 3, messages);
    expect(history.take("turn:1", 4)).toBeUndefined();
    expect(history.take("turn:1", 3)).toBeUndefined();
  });

  it("asks a claim that does not start its Turn for the other messages, and nothing else", () => {
    const history = new StartingHistory();
    const base: SessionCommit = { session_id: "s" };
    expect(history.request({ ...base, claim })).toEqual({ ...base, claim, report_messages: true });
    const start = {
      ...base,
      claim,
      starts_turn: { turn_id: "turn:1", command_id: "c", query: "q", created_at: 1 },
    };
    expect(history.request(start)).toBe(start);
    expect(history.request(base)).toBe(base);
  });

  it("keeps a claim's report with the claim's message, then notes each message committed after it", () => {
    const history = new StartingHistory();
    const answered = message("assistant:2", 2, 4);
    history.record(
      { session_id: "s", claim, message: { snapshot: answered, expected_revision: 3 } },
      { interaction_events: [], epoch: 7, messages: [message("user:1", 1)] },
    );
    const completed = message("assistant:2", 2, 5);
    const steer = message("user:3", 3);
    history.record(
      { session_id: "s", message: { snapshot: steer, expected_revision: 0 } },
      { interaction_events: [] },
    );
    history.record(
      { session_id: "s", message: { snapshot: completed, expected_revision: 4 } },
      { interaction_events: [] },
    );
    expect(history.take("turn:1", 7)).toEqual([message("user:1", 1), completed, steer]);
  });
});
