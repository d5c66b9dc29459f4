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

  it("round-trips a live notice, its body kept as the sender's JSON text", () => {
    const body = JSON.stringify({ session_id: "s\n1", delta: "line\nbreak", live: true });
    const notice: NotifyPayload = { kind: "live", session_id: "s\n1", event_id: 4, origin: "bus-a", body };
    const encoded = encodeNotifyPayload(notice);
    expect(encoded).toBe(`{"v":"s\\n1","e":4,"o":"bus-a"}\n${body}`);
    expect(decodeNotifyPayload(encoded)).toStrictEqual(notice);
  });

  it("decodes a live notice's header without parsing its body", () => {
    expect(decodeNotifyPayload('{"v":"s","e":0,"o":"b"}\n{not json')).toStrictEqual({
      kind: "live",
      session_id: "s",
      event_id: 0,
      origin: "b",
      body: "{not json",
    });
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
      '{"v":"s","e":1,"o":"b"}\n',
      '{"v":"s","e":-1,"o":"b"}\n{}',
      '{"v":"s","e":1}\n{}',
      "nope\n{}",
    ]) {
      expect(decodeNotifyPayload(text)).toBeNull();
    }
  });
});
