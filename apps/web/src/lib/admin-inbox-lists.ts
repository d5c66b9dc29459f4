import { RECENTLY_ANSWERED_LIMIT } from "./admin-inbox-state";
import type { AdminInboxItem, ParleyApi } from "./parley-api";

/** Pages followed per load; beyond this the inbox says so instead of cutting silently. */
const MAX_PENDING_PAGES = 25;
const PAGE_LIMIT = 200;
/** The most pending rows one load lists (the inbox says when it stopped there). */
export const MAX_LISTED_PENDING = MAX_PENDING_PAGES * PAGE_LIMIT;

export interface InboxLists {
  pending: AdminInboxItem[];
  /** More pending rows exist than the load followed. */
  truncated: boolean;
  answered: AdminInboxItem[];
}

/** The inbox's snapshot: every pending row (up to the bound) and the latest answers. */
export async function loadInboxLists(api: Pick<ParleyApi, "adminInteractions">): Promise<InboxLists> {
  const [pendingPages, resolved, denied] = await Promise.all([
    loadAllPending(api),
    api.adminInteractions({ status: "resolved", limit: RECENTLY_ANSWERED_LIMIT }),
    api.adminInteractions({ status: "denied", limit: RECENTLY_ANSWERED_LIMIT }),
  ]);
  return {
    pending: pendingPages.items,
    truncated: pendingPages.truncated,
    answered: [...resolved.items, ...denied.items],
  };
}

/** Every pending row, page by page (oldest first), up to a bound the page reports when reached. */
async function loadAllPending(api: Pick<ParleyApi, "adminInteractions">) {
  const items: AdminInboxItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PENDING_PAGES; page += 1) {
    const result = await api.adminInteractions({
      status: "pending",
      limit: PAGE_LIMIT,
      ...(cursor ? { cursor } : {}),
    });
    items.push(...result.items);
    cursor = result.next_cursor;
    if (!cursor) return { items, truncated: false };
  }
  return { items, truncated: true };
}
