import { describe, expect, it } from "vitest";
import { readRuntimeConfig } from "./runtime-config";

describe("readRuntimeConfig", () => {
  it("defaults to the local API and no local sign-in", () => {
    expect(readRuntimeConfig({})).toEqual({ api_url: "http://localhost:4000", local_sign_in: false });
  });

  it("reads the API URL without trailing slashes, ignoring blanks", () => {
    expect(readRuntimeConfig({ PARLEY_API_URL: "https://api.example.com/ " })).toEqual({
      api_url: "https://api.example.com",
      local_sign_in: false,
    });
    expect(readRuntimeConfig({ PARLEY_API_URL: "  " }).api_url).toBe("http://localhost:4000");
  });

  it("offers the local sign-in only when server.mjs holds a local session, and never carries a token", () => {
    const config = readRuntimeConfig({ PARLEY_LOCAL_SIGN_IN: "on", PARLEY_LOCAL_TOKEN: "abc" });
    expect(config).toEqual({ api_url: "http://localhost:4000", local_sign_in: true });
    expect(JSON.stringify(config)).not.toContain("abc");
    expect(readRuntimeConfig({ PARLEY_LOCAL_SIGN_IN: "off" }).local_sign_in).toBe(false);
  });
});
