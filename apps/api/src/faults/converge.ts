import { withReferences } from "@parley/session-core/testing";
import { expect } from "vitest";
import { consecutiveFromOne, type ReceivedMutations, readSessionEvents, waitUntil } from "./fault-checks.js";

/**
 * The end state every fault scenario must reach: the committed replay log has ids 1…n with no gap,
 * and every client received exactly that log — each id once, in order, with the same mutations.
 */
export async function expectClientsConverged(
  databaseUrl: string,
  session_id: string,
  clients: ReceivedMutations[],
): Promise<number> {
  const events = await readSessionEvents(databaseUrl, session_id);
  const committedIds = events.map((event) => event.event_id);
  expect(committedIds).toEqual(consecutiveFromOne(events.length));
  for (const [index, client] of clients.entries()) {
    await waitUntil(`client ${index} to reach event ${events.length}`, () =>
      client.lastEventId() >= events.length ? true : undefined,
    );
    expect(client.event_ids).toEqual(committedIds);
    // The log references stored parts and messages (DESIGN §10.6): compared by what each names.
    expect(client.items.map(withReferences)).toEqual(
      events.map((event) => withReferences({ ...event.mutation, event_id: event.event_id })),
    );
  }
  return events.length;
}
