import { z } from "zod";
import { type ApiLimits, DEFAULT_API_LIMITS } from "./limits/api-limits.js";
import { DEFAULT_MEMBER_QUOTAS, type MemberQuotaLimits } from "./limits/member-quotas.js";

const DEFAULT_PORT = 4000;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/**
 * The API's whole configuration, validated once at startup. Nothing else in `apps/api` reads
 * `process.env`: `main.ts` and `cli.ts` call `parseEnv(process.env)` and pass the result down.
 *
 * `HOST` defaults to `127.0.0.1`: the web app on the same machine reaches the API there, and a
 * fresh install does not expose an admin-token-guarded server to the network until the operator
 * asks for it with `HOST=0.0.0.0`.
 */
export const envSchema = z.object({
  /** Unset: an embedded Postgres with its data under `<PARLEY_DATA_DIR>/postgres`. */
  DATABASE_URL: optionalText,
  PARLEY_DATA_DIR: z.string().min(1).default(".parley"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  HOST: z.string().min(1).default("127.0.0.1"),
  PARLEY_MODEL: z.string().min(1).default("demo"),
  /**
   * More models sessions may choose (`model.list`): comma-separated settings in the `PARLEY_MODEL`
   * syntax. `PARLEY_MODEL` stays the default and is always listed.
   */
  PARLEY_MODELS: optionalText,
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText,
  ANTHROPIC_API_KEY: optionalText,
  PARLEY_WORKSPACE_ROOT: z.string().min(1).default(".parley/workspaces"),
  /** `id=path` pairs, comma-separated; parsed and checked by `@parley/tools` `parseWorkspaceConfig`. */
  PARLEY_WORKSPACES: optionalText,
  /** `off`: the shell tool runs unsandboxed, for trusted single-user setups (README.md#sandbox). */
  PARLEY_SANDBOX: z.enum(["on", "off"]).default("on"),
  /** `on`: shell commands share the server's network (else they have none). */
  PARLEY_SHELL_NETWORK: z.enum(["on", "off"]).default("off"),
  /** Where the shell sandbox's `bwrap` is looked up. */
  PATH: optionalText,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * `on` (default): a Turn waiting for a person gives back its lease and host, and the instance that
   * commits the answer resumes it by replay (docs/behaviour.md#durability), so waiting sessions
   * cost rows, not memory or advisory locks. `off` is an escape hatch only: a waiting Turn then
   * keeps its lease and host in the instance that runs it (docs/deployment.md).
   */
  PARLEY_PARK_WAITING_TURNS: z.enum(["on", "off"]).default("on"),
  /**
   * How long a Turn whose open tools all wait for a person stays held before it parks (0: parks at
   * once): an answer that comes within it (a service approving through the SDK) reaches the tool
   * where it runs, in one commit with no take-over. At most 256 Turns per instance wait held at
   * once (docs/behaviour.md#durability).
   */
  PARLEY_PARK_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /**
   * How often startup recovery re-runs to take over Turns whose owner died (within 2 s,
   * docs/behaviour.md#durability).
   */
  PARLEY_RECOVER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /**
   * A model stream that runs this long without a checkpoint gets one revision with what it streamed
   * so far (DESIGN §10.6; everything else it streams is live, never committed on its own).
   */
  PARLEY_STREAM_CHECKPOINT_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /**
   * `off`: start without touching the schema (no migration runs, `_prisma_migrations` is not even
   * created); the operator applies migrations, e.g. `npx prisma migrate deploy` before a rolling
   * upgrade (docs/deployment.md). `on` (default): pending migrations are applied at start.
   */
  PARLEY_MIGRATE: z.enum(["on", "off"]).default("on"),
  /**
   * A bearer token that `GET /metrics` on the API listener requires. Unset (and no
   * `PARLEY_METRICS_PORT`): `/metrics` is not served at all.
   */
  PARLEY_METRICS_TOKEN: optionalText,
  /**
   * `/metrics` on its own listener at this port (host `PARLEY_METRICS_HOST`, 127.0.0.1 by default),
   * served there without a token: what can reach that port is the operator's network policy.
   */
  PARLEY_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  PARLEY_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** Connections in the database pool; unset: `defaultPoolSize()` of `@parley/db` (2 × cores, 10–40). */
  PARLEY_DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  /**
   * The event bus (docs/deployment.md#the-event-bus-postgres-notify-or-nats): unset → Postgres
   * LISTEN/NOTIFY on `DATABASE_URL`; `nats://host:port` (comma-separated for a cluster) → NATS.
   * docs/deployment.md says when to switch.
   */
  PARLEY_BUS: optionalText.refine(
    (value) =>
      value === undefined || value.split(",").every((server) => /^nats:\/\/[^\s/]+$/.test(server.trim())),
    "PARLEY_BUS must be unset (Postgres NOTIFY) or nats://host:port",
  ),
  /** Resource limits (`limits/api-limits.ts`, README "Limits"); beyond them `limit_exceeded`. */
  PARLEY_MAX_CONNECTIONS_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_API_LIMITS.connections_per_user),
  PARLEY_MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_API_LIMITS.subscriptions_per_connection),
  /** Beyond it a batched HTTP request is `invalid_input`. */
  PARLEY_MAX_BATCH_SIZE: z.coerce.number().int().min(1).default(DEFAULT_API_LIMITS.batch_size),
  /** Calls per token per window; 0 turns the rate limit off. */
  PARLEY_RATE_LIMIT_REQUESTS: z.coerce.number().int().min(0).default(DEFAULT_API_LIMITS.rate_requests),
  PARLEY_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1).default(DEFAULT_API_LIMITS.rate_window_ms),
  /** How long a token lookup is cached (and so how long a revocation may take on another instance). */
  PARLEY_AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_API_LIMITS.auth_cache_ms),
  /** Members' quotas (`limits/member-quotas.ts`); beyond them `limit_exceeded`; 0 turns one off. */
  PARLEY_MAX_SESSIONS_PER_MEMBER: z.coerce
    .number()
    .int()
    .min(0)
    .default(DEFAULT_MEMBER_QUOTAS.sessions_per_member),
  PARLEY_MAX_PROMPTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(DEFAULT_MEMBER_QUOTAS.prompts_per_minute),
  PARLEY_MAX_WORKSPACE_BYTES: z.coerce.number().int().min(0).default(DEFAULT_MEMBER_QUOTAS.workspace_bytes),
});

export type Env = z.infer<typeof envSchema>;

/** Parses the environment or throws one error that lists every problem. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new Error(`Invalid environment:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/** The resource limits the environment sets. */
export function limitsFromEnv(env: Env): ApiLimits {
  return {
    ...DEFAULT_API_LIMITS,
    connections_per_user: env.PARLEY_MAX_CONNECTIONS_PER_USER,
    subscriptions_per_connection: env.PARLEY_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    batch_size: env.PARLEY_MAX_BATCH_SIZE,
    rate_requests: env.PARLEY_RATE_LIMIT_REQUESTS,
    rate_window_ms: env.PARLEY_RATE_LIMIT_WINDOW_MS,
    auth_cache_ms: env.PARLEY_AUTH_CACHE_MS,
  };
}

/** The members' quotas the environment sets. */
export function memberQuotasFromEnv(env: Env): MemberQuotaLimits {
  return {
    sessions_per_member: env.PARLEY_MAX_SESSIONS_PER_MEMBER,
    prompts_per_minute: env.PARLEY_MAX_PROMPTS_PER_MINUTE,
    workspace_bytes: env.PARLEY_MAX_WORKSPACE_BYTES,
  };
}

/** How the runtime runs, as the environment sets it (`composeRuntime` of `@parley/session-core`). */
export function runtimeSettingsFromEnv(env: Env): {
  park_waiting_turns: boolean;
  park_grace_ms: number;
  recover_interval_ms: number;
  stream_checkpoint_ms: number;
} {
  return {
    park_waiting_turns: env.PARLEY_PARK_WAITING_TURNS === "on",
    park_grace_ms: env.PARLEY_PARK_GRACE_MS,
    recover_interval_ms: env.PARLEY_RECOVER_INTERVAL_MS,
    stream_checkpoint_ms: env.PARLEY_STREAM_CHECKPOINT_MS,
  };
}
