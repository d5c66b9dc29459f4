import { describe, expect, it } from "vitest";
import { defaultPoolSize } from "./pool-size.js";

describe("defaultPoolSize", () => {
  it("gives 10 connections on a 2-core box and 40 on a 32-core one", () => {
    expect(defaultPoolSize(1)).toBe(10);
    expect(defaultPoolSize(2)).toBe(10);
    expect(defaultPoolSize(8)).toBe(16);
    expect(defaultPoolSize(32)).toBe(40);
  });
});
