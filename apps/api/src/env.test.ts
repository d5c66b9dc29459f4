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

  it("parks waiting Turns unless switched off", () => {
    expect(parseEnv({}).PARLEY_PARK_WAITING_TURNS).toBe("on");
    expect(parseEnv({ PARLEY_PARK_WAITING_TURNS: "off" }).PARLEY_PARK_WAITING_TURNS).toBe("off");
    expect(() => parseEnv({ PARLEY_PARK_WAITING_TURNS: "yes" })).toThrow(/PARLEY_PARK_WAITING_TURNS/);
  });

  it("holds a waiting Turn 500 ms before it parks unless set; 0 parks at once", () => {
    expect(parseEnv({}).PARLEY_PARK_GRACE_MS).toBe(500);
    expect(parseEnv({ PARLEY_PARK_GRACE_MS: "0" }).PARLEY_PARK_GRACE_MS).toBe(0);
    expect(() => parseEnv({ PARLEY_PARK_GRACE_MS: "-1" })).toThrow(/PARLEY_PARK_GRACE_MS/);
    expect(() => parseEnv({ PARLEY_PARK_GRACE_MS: "soon" })).toThrow(/PARLEY_PARK_GRACE_MS/);
  });

  it("migrates unless PARLEY_MIGRATE=off; /metrics has no token or port unless set, its listener on loopback", () => {
    expect(parseEnv({}).PARLEY_MIGRATE).toBe("on");
    expect(parseEnv({ PARLEY_MIGRATE: "off" }).PARLEY_MIGRATE).toBe("off");
    expect(() => parseEnv({ PARLEY_MIGRATE: "no" })).toThrow(/PARLEY_MIGRATE/);
    expect(parseEnv({})).toMatchObject({ PARLEY_METRICS_HOST: "127.0.0.1" });
    expect(parseEnv({}).PARLEY_METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({}).PARLEY_METRICS_PORT).toBeUndefined();
    expect(parseEnv({ PARLEY_METRICS_TOKEN: "  " }).PARLEY_METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ PARLEY_METRICS_TOKEN: " t0k ", PARLEY_METRICS_PORT: "9464" })).toMatchObject({
      PARLEY_METRICS_TOKEN: "t0k",
      PARLEY_METRICS_PORT: 9464,
    });
    expect(() => parseEnv({ PARLEY_METRICS_PORT: "70000" })).toThrow(/PARLEY_METRICS_PORT/);
  });

  it("selects the bus: unset is NOTIFY, nats:// URLs are NATS, anything else is refused", () => {
    expect(parseEnv({}).PARLEY_BUS).toBeUndefined();
    expect(parseEnv({ PARLEY_BUS: "nats://127.0.0.1:4222" }).PARLEY_BUS).toBe("nats://127.0.0.1:4222");
    expect(parseEnv({ PARLEY_BUS: "nats://a:4222, nats://b:4222" }).PARLEY_BUS).toBe(
      "nats://a:4222, nats://b:4222",
    );
    expect(() => parseEnv({ PARLEY_BUS: "redis://127.0.0.1:6379" })).toThrow(
      /PARLEY_BUS must be unset \(Postgres NOTIFY\) or nats:\/\/host:port/,
    );
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
