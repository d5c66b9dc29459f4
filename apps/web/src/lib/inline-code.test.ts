import { describe, expect, it } from "vitest";
import { splitInlineCode } from "./inline-code";

describe("splitInlineCode", () => {
  it("turns complete backtick spans into code runs", () => {
    expect(splitInlineCode("I'll run `echo hi` in the workspace.")).toEqual([
      { code: false, text: "I'll run " },
      { code: true, text: "echo hi" },
      { code: false, text: " in the workspace." },
    ]);
  });

  it("leaves an unmatched backtick (still streaming) as plain text", () => {
    expect(splitInlineCode("run `echo")).toEqual([{ code: false, text: "run `echo" }]);
  });

  it("does not span lines and keeps text without backticks whole", () => {
    expect(splitInlineCode("a `b\nc` d")).toEqual([{ code: false, text: "a `b\nc` d" }]);
    expect(splitInlineCode("plain")).toEqual([{ code: false, text: "plain" }]);
    expect(splitInlineCode("")).toEqual([]);
  });
});
