import { describe, expect, it } from "vitest";
import { parseEnv } from "./env.js";

describe("parseEnv", () => {
  it("applies the documented defaults", () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env).toMatchObject({
      PORT: 4000,
      HOST: "127.0.0.1",
      PARLEY_MODEL: "demo",
      PARLEY_WORKSPACE_ROOT: ".parley/workspaces",
      PARLEY_WORKSPACES: [],
      LOG_LEVEL: "info",
    });
  });

  it("parses PARLEY_WORKSPACES id=path pairs", () => {
    const env = parseEnv({ PARLEY_WORKSPACES: "project=/srv/repo, docs=/srv/docs", PORT: "4201" });
    expect(env.PARLEY_WORKSPACES).toEqual([
      { workspace_id: "project", root: "/srv/repo" },
      { workspace_id: "docs", root: "/srv/docs" },
    ]);
    expect(env.PORT).toBe(4201);
  });

  it("rejects malformed values with one error naming them", () => {
    expect(() => parseEnv({ PORT: "http" })).toThrow(/PORT/);
    expect(() => parseEnv({ PARLEY_WORKSPACES: "/srv/repo" })).toThrow(/id=path/);
    expect(() => parseEnv({ PARLEY_WORKSPACES: "a=/x,a=/y" })).toThrow(/repeats/);
    expect(() => parseEnv({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });
});
