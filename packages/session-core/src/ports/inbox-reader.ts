import type { InteractionQuery, InteractionRecord } from "./session-store.js";

/** One admin inbox row: the interaction's index record with its session's title and owner. */
export interface InboxEntry {
  record: InteractionRecord;
  session_title: string;
  owner_id: string;
  /** Null when the owner's user row is gone. */
  owner_name: string | null;
}

export interface InboxEntryPage {
  items: InboxEntry[];
  next_cursor: string | null;
}

/**
 * What the admin inbox reads: a page in `SessionStore.queryInteractions` order, each row already
 * joined with its session and owner. `@parley/db`'s `PrismaInboxReader` does it in one statement.
 */
export interface InboxReader {
  page(query: InteractionQuery): Promise<InboxEntryPage>;
}
