import type { TurnLease } from "../../ports/turn-lease.js";
import { refreshEffective } from "../commands/set.js";
import { cancelQueuedTurn } from "../commands/stop.js";
import { parkFound, startResumed } from "../turn/parking.js";
import { planQueue } from "../turn/queue-plan.js";
import { type HeldTurn, type LeaseHolder, readUnderLease } from "./lease-holder.js";

/**
 * The `drive` effect, with the session's lease: what the queued commands mean now (`planQueue`) is
 * done — an open Turn whose owner is gone is stopped, parked or resumed; a queued stop cancels the
 * queued prompts; the first queued prompt starts its Turn after the `set` commands ahead of it.
 * Nothing to do gives the lease back. Resolves with the Turn it started here, if any.
 */
export async function driveQueue(holder: LeaseHolder, lease: TurnLease): Promise<HeldTurn | undefined> {
  try {
    const { commands, record, open } = await readUnderLease(holder);
    await refreshEffective(holder, commands, record);
    const plan = planQueue(commands, open, { park_waiting_turns: holder.parkWaitingTurns });
    switch (plan.kind) {
      case "stop_open_turn": {
        const { message, reason } = plan;
        return holder.startTurn(lease, message.turn_id ?? "", (turn) =>
          turn.runStopOfOrphan(message, reason),
        );
      }
      case "park_open_turn":
        await parkFound(holder, lease, plan.message);
        return undefined;
      case "resume_open_turn":
        return startResumed(holder, lease, plan.message, new Set());
      case "cancel_queued":
        await cancelQueuedTurn(holder, lease.epoch, plan);
        await holder.endStart("nothing_to_drive", lease);
        return undefined;
      case "nothing":
        await holder.endStart("nothing_to_drive", lease);
        return undefined;
      case "start_turn":
        return holder.startTurn(lease, plan.turn_id, (turn) => turn.runNew(plan.prompt, plan.configs));
      default: {
        const unknown: never = plan;
        throw new Error(`Unknown queue plan: ${JSON.stringify(unknown)}`);
      }
    }
  } catch (error) {
    await holder.endStart("start_failed", lease);
    throw error;
  }
}
