import { describe, expect, it } from "vitest";
import { readRuntimeConfig } from "./runtime-config";

describe("readRuntimeConfig", () => {
  it("defaults to the local API and no auto-login", () => {
    expect(readRuntimeConfig({})).toEqual({ api_url: "http://localhost:4000", local_token: null });
  });

  it("reads the API URL without trailing slashes and the local token, ignoring blanks", () => {
    expect(
      readRuntimeConfig({ PARLEY_API_URL: "https://api.example.com/ ", PARLEY_LOCAL_TOKEN: " abc " }),
    ).toEqual({
      api_url: "https://api.example.com",
      local_token: "abc",
    });
    expect(readRuntimeConfig({ PARLEY_API_URL: "  ", PARLEY_LOCAL_TOKEN: "" })).toEqual({
      api_url: "http://localhost:4000",
      local_token: null,
    });
  });
});
