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
      LOG_LEVEL: "info",
    });
  });

  it("sandboxes the shell with no network unless told otherwise", () => {
    expect(parseEnv({})).toMatchObject({ PARLEY_SANDBOX: "on", PARLEY_SHELL_NETWORK: "off" });
    expect(parseEnv({ PARLEY_SANDBOX: "off", PARLEY_SHELL_NETWORK: "on" })).toMatchObject({
      PARLEY_SANDBOX: "off",
      PARLEY_SHELL_NETWORK: "on",
    });
    expect(() => parseEnv({ PARLEY_SANDBOX: "no" })).toThrow(/PARLEY_SANDBOX/);
  });

  it("coerces numbers and treats blank optional values as unset", () => {
    const env = parseEnv({ PORT: "4201", DATABASE_URL: "  ", PARLEY_WORKSPACES: "project=/srv/repo" });
    expect(env.PORT).toBe(4201);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PARLEY_WORKSPACES).toBe("project=/srv/repo");
  });

  it("rejects malformed values with one error naming them", () => {
    expect(() => parseEnv({ PORT: "http" })).toThrow(/PORT/);
    expect(() => parseEnv({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });
});
