import { createParleyClient } from "@parley/sdk";
import type { ParleyApi, ParleySessionApi } from "./parley-api";

/**
 * Binds the web app's `ParleyApi` to `@parley/sdk`. The only module that imports the SDK.
 *
 * Session subscriptions replay the session's log from the start (`after_event_id: 0`): the SDK
 * does not report when a subscription is live on the server, so subscribing "from now" and then
 * loading the snapshot could miss a mutation committed in between. The view's reducer drops every
 * replayed change the snapshot already holds (by revision), so the replay only costs bandwidth.
 */
export function createParleyApi(options: { url: string; token: string }): ParleyApi {
  const client = createParleyClient(options);
  return {
    whoami: () => client.auth.whoami(),
    userNames: async (user_ids) => {
      const result = await client.users.names({ user_ids: [...user_ids] });
      return new Map(result.items.map((item) => [item.user_id, item.name]));
    },
    listSessions: async (options) =>
      (
        await client.sessions.list({
          limit: 200,
          ...(options?.scope === "all" ? { scope: "all" } : {}),
          ...(options?.query ? { query: options.query } : {}),
        })
      ).items,
    listWorkspaces: async () => (await client.workspaces.list()).items.map((item) => item.workspace_id),
    listModels: async () => (await client.models.list()).items,
    createSession: async (input) => {
      const handle = await client.sessions.create(input);
      return handle.info();
    },
    session: (session_id) => bindSession(client.session(session_id)),
    adminInteractions: async (query) => {
      const page = await client.admin.interactions(query);
      return { items: page.items, next_cursor: page.next_cursor ?? null };
    },
    subscribeAdmin: (listener, onEnded) => client.admin.subscribe(listener, { onError: onEnded }),
    close: () => {
      void client.close();
    },
  };
}

function bindSession(handle: ReturnType<ReturnType<typeof createParleyClient>["session"]>): ParleySessionApi {
  return {
    id: handle.id,
    subscribe: (listener, onEnded) => handle.subscribe(listener, { after_event_id: 0, onError: onEnded }),
    info: () => handle.info(),
    status: () => handle.status(),
    messages: async (before_sequence) => {
      const page = await handle.messages(before_sequence === undefined ? {} : { before_sequence });
      return {
        items: page.items,
        has_more: page.has_more,
        next_before_sequence: page.next_before_sequence ?? null,
      };
    },
    prompt: (input) => handle.prompt(input),
    stop: () => handle.stop(),
    rename: (title) => handle.rename(title),
    close: async () => {
      await handle.close();
    },
    respond: (input) => handle.respond(input),
    set: (input) => handle.set(input),
  };
}
