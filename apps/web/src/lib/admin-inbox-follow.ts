import { type InboxLists, loadInboxLists } from "./admin-inbox-lists";
import { type AdminInteractionEvent, type ParleyApi, toDisplayError } from "./parley-api";

export interface InboxFollower {
  event(event: AdminInteractionEvent): void;
  lists(lists: InboxLists): void;
  /** The first load failed, or the feed ended for good: the inbox cannot be trusted any more. */
  failed(message: string): void;
}

/**
 * Follows the admin inbox: the live feed (`admin.onInteraction`) with the lists loaded beside it.
 * The lists are read at once (so an unreachable server shows as a failure) and again each time the
 * feed (re)starts: a read before the feed listens, or during a reconnect, may have missed an event,
 * and a re-read once it listens closes that gap (a failed re-read keeps what is shown; the next
 * start reads again). Nothing reaches the follower after `stop`.
 */
export function followAdminInbox(
  api: Pick<ParleyApi, "adminInteractions" | "subscribeAdmin">,
  follower: InboxFollower,
): () => void {
  let stopped = false;
  function load(first: boolean) {
    loadInboxLists(api).then(
      (lists) => {
        if (!stopped) follower.lists(lists);
      },
      (error: unknown) => {
        if (!stopped && first) follower.failed(toDisplayError(error).message);
      },
    );
  }
  const unsubscribe = api.subscribeAdmin(
    (event) => {
      if (!stopped) follower.event(event);
    },
    (error) => {
      if (!stopped) follower.failed(`Live updates stopped: ${toDisplayError(error).message}`);
    },
    () => {
      if (!stopped) load(false);
    },
  );
  load(true);
  return () => {
    stopped = true;
    unsubscribe();
  };
}
