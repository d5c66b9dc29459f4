import { createTRPCUntypedClient, createWSClient, splitLink, wsLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { contractClient } from "./contract-client.js";
import { lazyHttpTransport } from "./http-transport.js";
import { withParleyErrors } from "./parley-error.js";
import { createSessionHandle, type ParleySession } from "./session-handle.js";
import { startTrackedSubscription } from "./subscription.js";
import { tickBatchLink } from "./tick-batch-link.js";
import type {
  AdminInteractionsPage,
  AdminInteractionsQuery,
  CreatedUser,
  CreateSessionInput,
  CreateUserInput,
  InteractionFeedEvent,
  ModelList,
  RevokedTokens,
  RevokeUserInput,
  SessionListPage,
  SessionListQuery,
  SubscribeOptions,
  UserNames,
  UserNamesInput,
  WhoAmI,
  WorkspaceList,
} from "./types.js";
import { deferredWebSocket, loadWebSocketImplementation } from "./websocket-implementation.js";

export interface ParleyClientOptions {
  /** The API's base URL, e.g. `http://localhost:4000` (tRPC lives at `<url>/trpc`). */
  url: string;
  /** A bearer token (`npm run parley -- token create …` or `admin.users.create`). */
  token: string;
}

export interface ParleyClient {
  sessions: {
    create(input?: CreateSessionInput): Promise<ParleySession>;
    /** The caller's own sessions, newest first. */
    list(query?: SessionListQuery): Promise<SessionListPage>;
    /**
     * Every interaction created / answered / cancelled in the sessions you may see (a member: their
     * own; an admin: all), resuming after reconnects like `subscribe`. Events of other members'
     * sessions never arrive; `event_id`s come from one global sequence, so they have gaps.
     */
    subscribeInteractions(
      listener: (event: InteractionFeedEvent) => void | Promise<void>,
      options?: SubscribeOptions,
    ): () => void;
  };
  /** A handle on an existing session (no request is made until a method is called). */
  session(session_id: string): ParleySession;
  admin: {
    /** The inbox across all sessions (admins only; members get `forbidden`). */
    interactions(query?: AdminInteractionsQuery): Promise<AdminInteractionsPage>;
    /** Every interaction created / answered / cancelled, resuming after reconnects like `subscribe`. */
    subscribe(
      listener: (event: InteractionFeedEvent) => void | Promise<void>,
      options?: SubscribeOptions,
    ): () => void;
    users: {
      create(input: CreateUserInput): Promise<CreatedUser>;
      /** Revokes every token of the named user; their open connections close. */
      revoke(input: RevokeUserInput): Promise<RevokedTokens>;
    };
  };
  auth: { whoami(): Promise<WhoAmI> };
  workspaces: { list(): Promise<WorkspaceList> };
  /** The models a session may run on (`session.create({ model_id })`, `session.set({ model_id })`). */
  models: { list(): Promise<ModelList> };
  /** Display names for user ids (e.g. an Interaction's `responded_by`). */
  users: { names(input: UserNamesInput): Promise<UserNames> };
  /** Closes the WebSocket (subscriptions end). Queries and mutations over HTTP keep working. */
  close(): Promise<void>;
}

function trimTrailingSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}

/**
 * The typed Parley client for browsers and Node ≥ 20, with no extra option: queries and mutations
 * go over HTTP (the calls of one tick in one request, sent at its end), subscriptions over one WebSocket that connects on first use, reconnects
 * by itself and closes when idle.
 */
export function createParleyClient(options: ParleyClientOptions): ParleyClient {
  const base = trimTrailingSlash(options.url);
  const httpUrl = `${base}/trpc`;
  const wsUrl = `${base.replace(/^http/i, "ws")}/trpc`;

  const wsClient = createWSClient({
    url: async () => {
      await loadWebSocketImplementation();
      return wsUrl;
    },
    WebSocket: deferredWebSocket,
    connectionParams: { token: options.token },
    lazy: { enabled: true, closeMs: 5_000 },
    keepAlive: { enabled: true, intervalMs: 10_000, pongTimeoutMs: 5_000 },
    retryDelayMs: (attempt) => Math.min(100 * 2 ** attempt, 3_000),
  });

  const transport = lazyHttpTransport();
  const untyped = createTRPCUntypedClient<AnyRouter>({
    links: [
      splitLink({
        condition: (operation) => operation.type === "subscription",
        true: wsLink<AnyRouter>({ client: wsClient }),
        false: tickBatchLink({
          url: httpUrl,
          // The server refuses batches over PARLEY_MAX_BATCH_SIZE (default 50).
          maxItems: 20,
          headers: { authorization: `Bearer ${options.token}` },
          transport,
        }),
      }),
    ],
  });
  const trpc = contractClient(untyped);
  // Both interaction feeds take the same input and send the same events; only who sees what differs.
  const interactionFeed =
    (path: "admin.onInteraction" | "session.onInteraction") =>
    (listener: (event: InteractionFeedEvent) => void | Promise<void>, subscribeOptions?: SubscribeOptions) =>
      startTrackedSubscription<InteractionFeedEvent>({
        subscribe: (input, handlers) => trpc.subscribe(path, input, handlers),
        listener,
        subscribeOptions,
      });

  return {
    sessions: {
      create: (input) =>
        withParleyErrors(async () => {
          const info = await trpc.mutate("session.create", input);
          return createSessionHandle(trpc, info.session_id);
        }),
      list: (query) => withParleyErrors(() => trpc.query("session.list", query)),
      subscribeInteractions: interactionFeed("session.onInteraction"),
    },
    session: (session_id) => createSessionHandle(trpc, session_id),
    admin: {
      interactions: (query) => withParleyErrors(() => trpc.query("admin.interactions", query)),
      subscribe: interactionFeed("admin.onInteraction"),
      users: {
        create: (input) => withParleyErrors(() => trpc.mutate("admin.users.create", input)),
        revoke: (input) => withParleyErrors(() => trpc.mutate("admin.users.revoke", input)),
      },
    },
    auth: { whoami: () => withParleyErrors(() => trpc.query("auth.whoami", undefined)) },
    workspaces: { list: () => withParleyErrors(() => trpc.query("workspace.list", undefined)) },
    models: { list: () => withParleyErrors(() => trpc.query("model.list", undefined)) },
    users: { names: (input) => withParleyErrors(() => trpc.query("users.names", input)) },
    close: async () => {
      transport.close();
      await wsClient.close();
    },
  };
}
