import type { InteractionQuery, InteractionRecord, SessionStore } from "@parley/session-core";
import type { AuthStore } from "../auth/auth-store.js";

/** One admin inbox row: the interaction's index record with its session's title and owner. */
export interface InboxEntry {
  record: InteractionRecord;
  session_title: string;
  owner_id: string;
  owner_name: string | null;
}

/**
 * What the admin inbox reads: a page in `SessionStore.queryInteractions` order, each row already
 * joined with its session and owner. `@parley/db`'s `PrismaInboxReader` implements it in one
 * statement.
 */
export interface InboxReader {
  page(query: InteractionQuery): Promise<{ items: InboxEntry[]; next_cursor: string | null }>;
}

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
