import { describe, expect, it } from "vitest";
import { storableText, toStorableJson } from "./storable-json.js";

describe("storableText", () => {
  it("replaces NUL with ␀ and unpaired surrogates with U+FFFD, and nothing else", () => {
    expect(storableText("a\u0000b")).toBe("a\u2400b");
    expect(storableText("x\uD800y\uDC00z")).toBe("x\uFFFDy\uFFFDz");
    expect(storableText("emoji 😀 ok \\u0000")).toBe("emoji 😀 ok \\u0000");
  });
});

describe("toStorableJson", () => {
  it("cleans every string and key, at any depth, and keeps the rest", () => {
    const output = {
      stdout: "env\u0000HOME=/w\u0000",
      nested: [{ "k\u0000": ["\uDBFF"] }, 1, true, null],
    };
    expect(toStorableJson(output)).toEqual({
      stdout: "env\u2400HOME=/w\u2400",
      nested: [{ "k\u2400": ["\uFFFD"] }, 1, true, null],
    });
  });

  it("keeps a __proto__ key as data", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "a\\u0000"}}') as unknown;
    const stored = toStorableJson(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(Object.hasOwn(stored, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
