import { describe, expect, it } from "vitest";
import { readRuntimeConfig } from "./runtime-config";

describe("readRuntimeConfig", () => {
  it("defaults to the local API and no auto-login", () => {
    expect(readRuntimeConfig({})).toEqual({ api_url: "http://localhost:4000", local_token: null });
  });

  it("reads the API URL without trailing slashes, ignoring blanks", () => {
    expect(readRuntimeConfig({ PARLEY_API_URL: "https://api.example.com/ " })).toEqual({
      api_url: "https://api.example.com",
      local_token: null,
    });
    expect(readRuntimeConfig({ PARLEY_API_URL: "  " }).api_url).toBe("http://localhost:4000");
  });

  it("gives the local token only to a request marked local with this process's secret", () => {
    const env = { PARLEY_LOCAL_TOKEN: " abc ", PARLEY_LOCAL_PEER_SECRET: "s3cret" };
    expect(readRuntimeConfig(env, "s3cret").local_token).toBe("abc");
    expect(readRuntimeConfig(env, "guess").local_token).toBeNull();
    expect(readRuntimeConfig(env, null).local_token).toBeNull();
    // Plain `next start` (no secret): never, whatever the client sends.
    expect(readRuntimeConfig({ PARLEY_LOCAL_TOKEN: "abc" }, "").local_token).toBeNull();
    expect(readRuntimeConfig({ ...env, PARLEY_LOCAL_TOKEN: "" }, "s3cret").local_token).toBeNull();
  });
});
