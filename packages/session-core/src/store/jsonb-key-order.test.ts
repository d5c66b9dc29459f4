import { describe, expect, it } from "vitest";
import { inJsonbKeyOrder } from "./jsonb-key-order.js";

describe("inJsonbKeyOrder", () => {
  it("orders keys as jsonb does: shorter first, then by their bytes, at every depth", () => {
    const value = { zeta: 1, b: { yy: [{ bb: 1, a: 2 }], x: null }, aa: "x", a: true, B: 0 };
    const ordered = inJsonbKeyOrder(value);
    expect(JSON.stringify(ordered)).toBe(
      '{"B":0,"a":true,"b":{"x":null,"yy":[{"a":2,"bb":1}]},"aa":"x","zeta":1}',
    );
    expect(ordered).toEqual(value);
  });

  it("measures a key in UTF-8 bytes: é (2 bytes) sorts after every 1-byte key, before 3-byte ones", () => {
    expect(Object.keys(inJsonbKeyOrder({ ab: 1, é: 2, z: 3, abc: 4 }))).toEqual(["z", "ab", "é", "abc"]);
  });

  it("leaves the original unchanged and keeps scalars and undefined as they are", () => {
    const original = { b: 1, a: undefined };
    const ordered = inJsonbKeyOrder(original);
    expect(Object.keys(original)).toEqual(["b", "a"]);
    expect(Object.keys(ordered)).toEqual(["a", "b"]);
    expect(inJsonbKeyOrder("text")).toBe("text");
    expect(inJsonbKeyOrder(null)).toBeNull();
  });
});
