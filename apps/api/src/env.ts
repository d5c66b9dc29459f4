import { z } from "zod";

const DEFAULT_PORT = 4000;

/** `id=path` pairs, comma-separated (`project=/srv/repo,docs=/srv/docs`). */
const workspacePairsSchema = z.string().transform((value, context) => {
  const pairs: { workspace_id: string; root: string }[] = [];
  for (const entry of value.split(",")) {
    const trimmed = entry.trim();
    if (trimmed === "") continue;
    const separator = trimmed.indexOf("=");
    const workspace_id = separator > 0 ? trimmed.slice(0, separator).trim() : "";
    const root = separator > 0 ? trimmed.slice(separator + 1).trim() : "";
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(workspace_id) || root === "") {
      context.addIssue({ code: "custom", message: `PARLEY_WORKSPACES entry must be id=path: ${trimmed}` });
      return z.NEVER;
    }
    if (pairs.some((pair) => pair.workspace_id === workspace_id)) {
      context.addIssue({ code: "custom", message: `PARLEY_WORKSPACES repeats the id: ${workspace_id}` });
      return z.NEVER;
    }
    pairs.push({ workspace_id, root });
  }
  return pairs;
});

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
  /** Unset: an embedded Postgres under `PARLEY_DATA_DIR` (default `.parley/postgres`). */
  DATABASE_URL: optionalText,
  PARLEY_DATA_DIR: z.string().default(".parley/postgres"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  HOST: z.string().min(1).default("127.0.0.1"),
  PARLEY_MODEL: z.string().min(1).default("demo"),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText,
  ANTHROPIC_API_KEY: optionalText,
  PARLEY_WORKSPACE_ROOT: z.string().min(1).default(".parley/workspaces"),
  PARLEY_WORKSPACES: workspacePairsSchema.default([]),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How often startup recovery re-runs to take over Turns whose owner died (DESIGN.md §9: ≤ 2 s). */
  PARLEY_RECOVER_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
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
