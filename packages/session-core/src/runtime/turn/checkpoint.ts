import { StoreConflictError } from "../../errors.js";
import type { CancelReason } from "../../schema/interaction.js";
import type { PromptCommand } from "../../schema/session-command.js";
import type { CommandHost } from "../commands/command-host.js";
import { applyConfig } from "../commands/set.js";
import { TURN_STOPPED } from "../commands/stop.js";
import { closeAssistantMessage } from "../transitions/assistant-transitions.js";
import type { OpenSegment } from "./open-segment.js";
import type { TurnRecords } from "./turn-records.js";

/** What a checkpoint works with, of the Turn that reaches it. */
export interface CheckpointTurn {
  readonly turn_id: string;
  readonly epoch: number;
  readonly host: CommandHost;
  readonly segment: OpenSegment;
  readonly records: TurnRecords;
  /** Stops the Turn with `reason` and unwinds its loop (throws once it ended). */
  stopHere(reason: CancelReason): void;
}

/**
 * At each checkpoint (docs/behaviour.md#turn-and-step), before each model request the session's
 * queued commands (committed by any instance) are applied in FIFO order, each settled in the
 * commit of its effect: a `set` changes the effective settings, a prompt of this Turn joins as a
 * steer (closing the open message, so the model's next output opens a new segment), and a queued
 * stop stops the Turn.
 */
export async function applyCheckpoint(turn: CheckpointTurn): Promise<void> {
  const { host, segment } = turn;
  let steered = false;
  // What the Turn's last commit reported, else read (see `QueuedCommandsSeen`).
  const commands =
    host.writer.queued.take() ?? (await host.context.store.listQueuedCommands(host.session_id));
  for (const command of commands) {
    if (command.kind === "stop") turn.stopHere(command.input.reason);
    if (command.kind === "set") {
      await applyConfig(host, command, turn.turn_id, turn.epoch);
      continue;
    }
    // A prompt of a later Turn waits for that Turn (it cannot precede this one's finish).
    if (command.kind !== "prompt" || command.turn_id !== turn.turn_id) continue;
    if (await steer(turn, command)) steered = true;
  }
  const message_id = segment.messageId;
  if (steered && message_id) {
    await segment.update(message_id, (current, now) =>
      closeAssistantMessage(current, {
        status: "completed",
        tool_error: TURN_STOPPED,
        cancel_reason: "turn_stopped",
        now,
      }),
    );
    segment.endSegment();
  }
}

/**
 * Applies a queued prompt as a steer. False when it was withdrawn after the queue was read: the
 * store settles it only while it is still queued, so the commit fails and nothing of it is written.
 */
async function steer(turn: CheckpointTurn, command: PromptCommand): Promise<boolean> {
  try {
    await turn.records.userMessage(command.input.query, "steer", command.command_id);
    return true;
  } catch (error) {
    if (!(error instanceof StoreConflictError) || error.kind !== "revision") throw error;
    const stored = await turn.host.context.store.getCommand(turn.host.session_id, command.command_id);
    if (stored?.status !== "cancelled") throw error;
    return false;
  }
}
