import type { AuthStore, InboxReader, SessionStore } from "@parley/session-core";

/**
 * The inbox over any `SessionStore` and `AuthStore` (the in-memory API of tests and benches): the
 * page, then one lookup per distinct session and owner of it. Those lookups are free in memory; a
 * database deployment uses the joined reader instead.
 */
export function storeInboxReader(store: SessionStore, auth: AuthStore): InboxReader {
  return {
    async page(query) {
      const page = await store.queryInteractions(query);
      const sessionIds = [...new Set(page.items.map((item) => item.session_id))];
      const sessions = new Map(
        await Promise.all(sessionIds.map(async (id) => [id, await store.getSession(id)] as const)),
      );
      const ownerIds = [
        ...new Set([...sessions.values()].flatMap((session) => (session ? [session.owner_id] : []))),
      ];
      const owners = new Map(
        await Promise.all(ownerIds.map(async (id) => [id, await auth.getUser(id)] as const)),
      );
      return {
        items: page.items.flatMap((record) => {
          const session = sessions.get(record.session_id);
          if (!session) return [];
          return [
            {
              record,
              session_title: session.title,
              owner_id: session.owner_id,
              owner_name: owners.get(session.owner_id)?.name ?? null,
            },
          ];
        }),
        next_cursor: page.next_cursor,
      };
    },
  };
}
