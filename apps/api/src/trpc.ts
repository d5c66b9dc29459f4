import type { AuthUser } from "@parley/session-core";
import { ParleyError } from "@parley/session-core";
import { initTRPC } from "@trpc/server";
import type { ApiAccess } from "./auth/api-access.js";
import { formatError, toTRPCError } from "./errors.js";
import type { ApiServices } from "./services.js";

/** Per request (HTTP) or per connection (WebSocket): the services and who is calling. */
export interface ApiContext {
  services: ApiServices;
  /** Null when no valid bearer token came with the request. */
  user: AuthUser | null;
  /** The caller's `x-request-id`, else a new one; every log line of the request carries it. */
  request_id: string;
  /** The SHA-256 of the token that authenticated (the rate limit's key); null without one. */
  token_hash: string | null;
  /** A WebSocket connection's own state; null on HTTP (an SSE stream is one subscription). */
  connection: { subscriptions: number } | null;
  access: ApiAccess;
}

const t = initTRPC.context<ApiContext>().create({
  errorFormatter: formatError,
  isDev: false,
  sse: {
    ping: { enabled: true, intervalMs: 15_000 },
    client: { reconnectAfterInactivityMs: 30_000 },
  },
});

export const router = t.router;

/** Domain errors thrown by a resolver leave as typed `TRPCError`s, never as a 500. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = toTRPCError(result.error.cause);
    if (mapped !== result.error.cause) throw mapped;
  }
  return result;
});

const requireUser = t.middleware(({ ctx, next }) => {
  if (ctx.user === null || ctx.token_hash === null) {
    throw toTRPCError(new ParleyError("unauthorized", "A valid bearer token is required"));
  }
  return next({ ctx: { ...ctx, user: ctx.user, token_hash: ctx.token_hash } });
});

/** Every call of a token counts against its rate (`PARLEY_RATE_LIMIT_*`). */
const limitRate = t.middleware(({ ctx, next }) => {
  if (ctx.token_hash !== null) {
    try {
      ctx.access.takeCall(ctx.token_hash);
    } catch (error) {
      throw toTRPCError(error);
    }
  }
  return next();
});

/**
 * At most `subscriptions_per_connection` subscriptions open at once on one WebSocket; the count
 * drops when a subscription's stream ends (stopped by the client, failed or closed).
 */
const limitSubscriptions = t.middleware(async ({ ctx, type, next }) => {
  const connection = ctx.connection;
  if (type !== "subscription" || connection === null) return next();
  const max = ctx.access.limits.subscriptions_per_connection;
  if (connection.subscriptions >= max) {
    throw toTRPCError(
      new ParleyError("limit_exceeded", `Too many subscriptions on this connection (the limit is ${max})`),
    );
  }
  connection.subscriptions += 1;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    connection.subscriptions -= 1;
  };
  const result = await next();
  if (!result.ok || !isAsyncIterable(result.data)) {
    release();
    return result;
  }
  return { ...result, data: releasingWhenDone(result.data, release) };
});

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

async function* releasingWhenDone<T>(source: AsyncIterable<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* source;
  } finally {
    release();
  }
}

const requireAdmin = t.middleware(({ ctx, next }) => {
  if (ctx.user?.role !== "admin") {
    throw toTRPCError(new ParleyError("forbidden", "This procedure requires the admin role"));
  }
  return next();
});

/** The ids a log line of a call carries: `session_id` from the input, `turn_id` from input or result. */
function idsOf(value: unknown): { session_id?: string; turn_id?: string } {
  if (typeof value !== "object" || value === null) return {};
  const { session_id, turn_id } = value as { session_id?: unknown; turn_id?: unknown };
  return {
    ...(typeof session_id === "string" ? { session_id } : {}),
    ...(typeof turn_id === "string" ? { turn_id } : {}),
  };
}

/**
 * One structured line per call (subscriptions: when they start), with the request id and the
 * session and Turn it concerns.
 */
const logCall = t.middleware(async ({ ctx, path, type, getRawInput, next }) => {
  const started = performance.now();
  const result = await next();
  const input = idsOf(await getRawInput().catch(() => undefined));
  const output = result.ok ? idsOf(result.data) : {};
  ctx.services.logger.info(
    {
      request_id: ctx.request_id,
      path,
      type,
      ...input,
      ...output,
      ok: result.ok,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    },
    "call",
  );
  return result;
});

/** Signed-in callers; authentication runs before input parsing, so no token always means `unauthorized`. */
export const authedProcedure = t.procedure
  .use(logCall)
  .use(mapDomainErrors)
  .use(requireUser)
  .use(limitRate)
  .use(limitSubscriptions);

/** Admins only: members get `forbidden`. */
export const adminProcedure = authedProcedure.use(requireAdmin);

/** The context of a procedure behind `authedProcedure`. */
export type AuthedContext = ApiContext & { user: AuthUser; token_hash: string };
