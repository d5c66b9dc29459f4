import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads a whole number and one unit", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("15m")).toBe(900_000);
    expect(parseDuration("12h")).toBe(43_200_000);
    expect(parseDuration("30d")).toBe(2_592_000_000);
    expect(parseDuration("2w")).toBe(1_209_600_000);
  });

  it("rejects anything else", () => {
    for (const text of ["", "30", "d", "0d", "-1d", "1.5h", "30 days", "1y"]) {
      expect(parseDuration(text)).toBeNull();
    }
  });
});
