import { describe, expect, it } from "vitest";
import { decodeOutputBytes, replacementNote } from "./output-text.js";

describe("decodeOutputBytes", () => {
  it("keeps valid UTF-8 as it is", () => {
    expect(decodeOutputBytes(Buffer.from("héllo ✓", "utf8"))).toEqual({
      text: "héllo ✓",
      nul_bytes: 0,
      invalid_sequences: 0,
    });
  });

  it("replaces NUL with ␀ and invalid sequences with U+FFFD, counting both", () => {
    const bytes = Buffer.from([0x61, 0x00, 0x62, 0xff, 0xfe, 0x63, 0x00]);
    expect(decodeOutputBytes(bytes)).toEqual({
      text: "a\u2400b\uFFFD\uFFFDc\u2400",
      nul_bytes: 2,
      invalid_sequences: 2,
    });
  });

  it("drops a character cut in half at the cap instead of calling it invalid", () => {
    const bytes = Buffer.from("ab✓", "utf8").subarray(0, 4); // ✓ is 3 bytes: 2 of them kept
    expect(decodeOutputBytes(bytes, { cut: true })).toEqual({
      text: "ab",
      nul_bytes: 0,
      invalid_sequences: 0,
    });
    expect(decodeOutputBytes(bytes).invalid_sequences).toBe(1);
  });
});

describe("replacementNote", () => {
  it("names each field and what was replaced, or nothing", () => {
    const clean = decodeOutputBytes(Buffer.from("ok"));
    expect(replacementNote([{ name: "content", decoded: clean }])).toBeUndefined();
    const binary = decodeOutputBytes(Buffer.from([0x00, 0x00, 0x80]));
    expect(replacementNote([{ name: "content", decoded: binary }])).toBe(
      "Binary output replaced (content: 2 NUL bytes shown as \u2400, 1 invalid UTF-8 sequence shown as \uFFFD).",
    );
  });
});
