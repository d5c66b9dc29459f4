import { ParleyError } from "@parley/session-core";
import { initTRPC } from "@trpc/server";
import type { AuthUser } from "./auth/auth-store.js";
import { formatError, toTRPCError } from "./errors.js";
import type { ApiServices } from "./services.js";

/** Per request (HTTP) or per connection (WebSocket): the services and who is calling. */
export interface ApiContext {
  services: ApiServices;
  /** Null when no valid bearer token came with the request. */
  user: AuthUser | null;
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
  if (ctx.user === null) {
    throw toTRPCError(new ParleyError("unauthorized", "A valid bearer token is required"));
  }
  return next({ ctx: { ...ctx, user: ctx.user } });
});

const requireAdmin = t.middleware(({ ctx, next }) => {
  if (ctx.user?.role !== "admin") {
    throw toTRPCError(new ParleyError("forbidden", "This procedure requires the admin role"));
  }
  return next();
});

/** Signed-in callers; authentication runs before input parsing, so no token always means `unauthorized`. */
export const authedProcedure = t.procedure.use(mapDomainErrors).use(requireUser);

/** Admins only: members get `forbidden`. */
export const adminProcedure = authedProcedure.use(requireAdmin);

/** The context of a procedure behind `authedProcedure`. */
export type AuthedContext = ApiContext & { user: AuthUser };
