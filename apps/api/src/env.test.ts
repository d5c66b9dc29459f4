import { describe, expect, it } from "vitest";
import { limitsFromEnv, parseEnv } from "./env.js";
import { DEFAULT_API_LIMITS } from "./limits/api-limits.js";

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

describe("limitsFromEnv", () => {
  it("has documented defaults and reads each PARLEY_* limit", () => {
    expect(limitsFromEnv(parseEnv({}))).toStrictEqual(DEFAULT_API_LIMITS);
    const limits = limitsFromEnv(
      parseEnv({
        PARLEY_MAX_CONNECTIONS_PER_USER: "2",
        PARLEY_MAX_SUBSCRIPTIONS_PER_CONNECTION: "3",
        PARLEY_MAX_BATCH_SIZE: "4",
        PARLEY_RATE_LIMIT_REQUESTS: "0",
        PARLEY_RATE_LIMIT_WINDOW_MS: "1000",
        PARLEY_AUTH_CACHE_MS: "0",
      }),
    );
    expect(limits).toMatchObject({
      connections_per_user: 2,
      subscriptions_per_connection: 3,
      batch_size: 4,
      rate_requests: 0,
      rate_window_ms: 1000,
      auth_cache_ms: 0,
    });
    expect(() => parseEnv({ PARLEY_MAX_BATCH_SIZE: "0" })).toThrow(/PARLEY_MAX_BATCH_SIZE/);
  });
});
