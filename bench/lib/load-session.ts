import type { ParleySession } from "@parley/sdk";
import { APPROVE, pendingInteractionId, SessionWatch, toolPartsOf } from "./session-watch.js";
import { now } from "./stats.js";

/** What the clients of one load run add up: each finished cycle's latency, and every error. */
export interface LoadTally {
  latencies: number[];
  errors: string[];
}

/**
 * One client's part of a load run (`load.ts`, `load-buses.ts`): `cycles` approval cycles on
 * `session`, one after another — prompt → approval pending → respond through `responder` (the same
 * session, or its handle on another instance) → Turn finished — each timed from the prompt to the
 * finish as this client sees it. A failed cycle is an error, not a latency; so is a gap or a
 * duplicate in the event ids the client received. Returns false when it stopped at `deadline`.
 */
export async function runLoadSession(
  session: ParleySession,
  responder: ParleySession,
  options: { name: string; cycles: number; deadline: number },
  tally: LoadTally,
): Promise<boolean> {
  const watch = new SessionWatch();
  session.subscribe(watch.onMutation, { after_event_id: 0 });
  for (let cycle = 0; cycle < options.cycles; cycle++) {
    if (now() > options.deadline) return false;
    try {
      const seenBefore = watch.event_ids[watch.event_ids.length - 1] ?? 0;
      const after = (mutation: { event_id: number }) => mutation.event_id > seenBefore;
      const pending = watch.waitFor(
        (mutation) => after(mutation) && toolPartsOf(mutation).some((part) => part.state === "waiting-user"),
      );
      const finished = watch.waitFor(
        (mutation) => after(mutation) && mutation.variant === "turn" && mutation.type === "finish",
      );
      const started = now();
      await session.prompt(`approve ${options.name}x${cycle}`);
      const seen = await pending;
      await responder.respond({ interaction_id: pendingInteractionId(seen.mutation), response: APPROVE });
      const finish = await finished;
      if (finish.mutation.variant === "turn" && finish.mutation.status !== "completed") {
        throw new Error(`turn ended ${finish.mutation.status}`);
      }
      tally.latencies.push(now() - started);
    } catch (error) {
      tally.errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (!watch.isGapFree()) tally.errors.push(`session ${session.id}: event id gap or duplicate at the client`);
  return true;
}
