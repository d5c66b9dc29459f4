import { describe, expect, it } from "vitest";
import { decodeNotifyPayload, encodeNotifyPayload, type NotifyPayload } from "./notify-payload.js";

describe("NOTIFY payloads", () => {
  it("round-trips session and interaction notices", () => {
    const notices: NotifyPayload[] = [
      { kind: "session", session_id: 'session:é"quoted"', first: 3, last: 7 },
      { kind: "interaction", last: 12 },
    ];
    for (const notice of notices)
      expect(decodeNotifyPayload(encodeNotifyPayload(notice))).toStrictEqual(notice);
  });

  it("stays far below PostgreSQL's 8,000-byte payload limit for long session ids", () => {
    const payload = encodeNotifyPayload({
      kind: "session",
      session_id: "s".repeat(200),
      first: 1,
      last: 2 ** 31,
    });
    expect(Buffer.byteLength(payload)).toBeLessThan(300);
  });

  it("ignores payloads that are not ours", () => {
    for (const text of [
      undefined,
      "",
      "not json",
      "42",
      "null",
      '{"s":"x","f":1}',
      '{"i":1.5}',
      '{"s":1,"f":1,"l":2}',
    ]) {
      expect(decodeNotifyPayload(text)).toBeNull();
    }
  });
});
