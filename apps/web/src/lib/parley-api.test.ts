import { describe, expect, it } from "vitest";
import { SERVER_NOT_REACHED, toDisplayError } from "./parley-api";

describe("toDisplayError", () => {
  it("keeps the server's code and message", () => {
    const error = Object.assign(new Error("Session is closed: s1"), { code: "session_closed" });
    expect(toDisplayError(error)).toEqual({ code: "session_closed", message: "Session is closed: s1" });
  });

  it.each(["Failed to fetch", "NetworkError when attempting to fetch resource.", "Load failed"])(
    "says the server could not be reached where the browser says %j",
    (message) => {
      expect(toDisplayError(new TypeError(message))).toEqual({ code: null, message: SERVER_NOT_REACHED });
    },
  );

  it("keeps any other message without a code, and a thrown non-object as text", () => {
    expect(toDisplayError(new Error("Internal server error"))).toEqual({
      code: null,
      message: "Internal server error",
    });
    expect(toDisplayError("boom")).toEqual({ code: null, message: "boom" });
  });
});
