import { createParleyClient } from "@parley/sdk";
import type { ParleyApi, ParleySessionApi } from "./parley-api";

/** Sessions per page of the sidebar (the server allows up to 200). */
const SESSION_PAGE_SIZE = 50;

/**
 * Binds the web app's `ParleyApi` to `@parley/sdk`. The only module that imports the SDK.
 *
 * Session subscriptions start from now, not from the log's start: the view loads its snapshot once
 * the SDK reports the subscription started (the server listens by then), so no mutation committed
 * in between is missed, and the view's reducer drops any the snapshot already holds (by revision).
 */
export function createParleyApi(options: { url: string; token: string }): ParleyApi {
  const client = createParleyClient(options);
  return {
    whoami: () => client.auth.whoami(),
    userNames: async (user_ids) => {
      const result = await client.users.names({ user_ids: [...user_ids] });
      return new Map(result.items.map((item) => [item.user_id, item.name]));
    },
    listSessions: (options) =>
      client.sessions.list({
        limit: SESSION_PAGE_SIZE,
        ...(options.scope === "all" ? { scope: "all" } : {}),
        ...(options.query ? { query: options.query } : {}),
        ...(options.cursor ? { cursor: options.cursor } : {}),
      }),
    listWorkspaces: async () => (await client.workspaces.list()).items.map((item) => item.workspace_id),
    listModels: async () => (await client.models.list()).items,
    createSession: async (input) => {
      const handle = await client.sessions.create(input);
      return handle.info();
    },
    session: (session_id) => bindSession(client.session(session_id)),
    adminInteractions: (query) => client.admin.interactions(query),
    subscribeAdmin: (listener, onEnded, onStarted) =>
      client.admin.subscribe(listener, feedOptions(onEnded, onStarted)),
    subscribeSessionInteractions: (listener, onEnded, onStarted) =>
      client.sessions.subscribeInteractions(listener, feedOptions(onEnded, onStarted)),
    close: () => {
      void client.close();
    },
  };
}

/** An interaction feed's SDK options from the web app's callbacks. */
function feedOptions(onEnded: (error: unknown) => void, onStarted: (() => void) | undefined) {
  return { onError: onEnded, ...(onStarted ? { onStarted } : {}) };
}

function bindSession(handle: ReturnType<ReturnType<typeof createParleyClient>["session"]>): ParleySessionApi {
  return {
    id: handle.id,
    subscribe: (listener, { onStarted, onReconnect, onEnded }) =>
      handle.subscribe(listener, { live: true, onStarted, onReconnect, onError: onEnded }),
    info: () => handle.info(),
    status: () => handle.status(),
    messages: (before_sequence) => handle.messages(before_sequence === undefined ? {} : { before_sequence }),
    prompt: (input) => handle.prompt(input),
    queuedPrompts: () => handle.queuedPrompts(),
    withdrawPrompt: (request_id) => handle.withdrawPrompt(request_id),
    stop: () => handle.stop(),
    rename: (title) => handle.rename(title),
    close: async () => {
      await handle.close();
    },
    respond: (input) => handle.respond(input),
    set: (input) => handle.set(input),
  };
}
