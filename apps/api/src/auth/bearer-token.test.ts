import { describe, expect, it } from "vitest";
import { readBearerToken } from "./bearer-token.js";

describe("readBearerToken", () => {
  it("reads the Authorization header, then connectionParams", () => {
    expect(readBearerToken({ authorization: "Bearer abc", connectionParams: null })).toBe("abc");
    expect(readBearerToken({ authorization: "bearer  abc ", connectionParams: null })).toBe("abc");
    expect(readBearerToken({ authorization: undefined, connectionParams: { token: "xyz" } })).toBe("xyz");
  });

  it("returns null without a usable token", () => {
    expect(readBearerToken({ authorization: undefined, connectionParams: null })).toBeNull();
    expect(readBearerToken({ authorization: "Basic abc", connectionParams: {} })).toBeNull();
    expect(readBearerToken({ authorization: "Bearer", connectionParams: { token: "" } })).toBeNull();
  });
});
