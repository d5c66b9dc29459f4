import { StoreConflictError } from "../../errors.js";
import type { TurnResult } from "../../schema/session.js";
import type { RuntimeContext } from "../runtime-context.js";
import type { SessionWriter } from "../session/session-writer.js";
import { closeAssistantMessage } from "../transitions/assistant-transitions.js";
import type { OpenSegment } from "./open-segment.js";
import { TURN_INTERRUPTED } from "./parking.js";
import { errorText } from "./step-stream-consumer.js";
import type { TurnRecords } from "./turn-records.js";

/**
 * What writing a Turn's end works with: its open segment, its records (every write fenced with the
 * Turn's epoch), and `markFinished`, called once the finish is committed (the session reads idle).
 */
export interface FinishingTurn {
  readonly turn_id: string;
  readonly session_id: string;
  readonly context: RuntimeContext;
  readonly writer: SessionWriter;
  readonly segment: OpenSegment;
  readonly records: TurnRecords;
  markFinished(): void;
}

const TOOL_NOT_COMPLETED = "Tool did not complete before Assistant Message closed";

/**
 * The model answered without tool calls: the close of the open message and the Turn's finish are
 * one commit. A prompt queued for this Turn refuses the finish (`StoreConflictError` `queued`, it
 * joins as a steer): the message still closes, on its own, and the error goes to the loop.
 */
export async function writeCompletedFinish(turn: FinishingTurn, text: string): Promise<TurnResult> {
  const { segment, records } = turn;
  const finish = { type: "finish", status: "completed", text } as const;
  const commands = { ends_turn: { turn_id: turn.turn_id, cancel_queued_prompts: false } };
  const message_id = segment.messageId;
  if (!message_id) await records.turnMutation(finish, () => turn.markFinished(), commands);
  else {
    try {
      await records.closeAndFinish(
        message_id,
        (current, now) =>
          closeAssistantMessage(current, {
            status: "completed",
            tool_error: TOOL_NOT_COMPLETED,
            cancel_reason: "turn_stopped",
            now,
          }),
        finish,
        () => turn.markFinished(),
        commands,
      );
    } catch (error) {
      if (error instanceof StoreConflictError && error.kind === "queued") {
        await segment.close("completed", TOOL_NOT_COMPLETED, "turn_stopped");
      }
      throw error;
    }
  }
  return { turn_id: turn.turn_id, text, success: true };
}

/**
 * docs/behaviour.md#turn-and-step: the message keeps its parts and closes `failed`, then one
 * `error` message. A failure to write it is logged; the result is delivered anyway.
 */
export async function writeFailedFinish(turn: FinishingTurn, error: unknown): Promise<TurnResult> {
  const message = errorText(error);
  try {
    await turn.segment.close("failed", message, "turn_stopped");
    await turn.records.errorMessage("turn_execution_failed", message);
    await turn.records.turnMutation(
      { type: "finish", status: "failed", error: message },
      () => turn.markFinished(),
      { ends_turn: { turn_id: turn.turn_id, cancel_queued_prompts: true } },
    );
  } catch (writeError) {
    turn.context.logger?.error({ session_id: turn.session_id, err: writeError }, "failing the turn failed");
  }
  return { turn_id: turn.turn_id, text: "", success: false, error: message };
}

/** A Step whose stream was cut by a crash is not replayed (docs/behaviour.md#durability). */
export async function writeInterruptedFinish(turn: FinishingTurn): Promise<TurnResult> {
  await turn.segment.close("failed", TURN_INTERRUPTED, "runtime_interrupted");
  await turn.records.errorMessage("turn_interrupted", TURN_INTERRUPTED);
  await turn.records.turnMutation({ type: "finish", status: "failed", error: TURN_INTERRUPTED }, undefined, {
    ends_turn: { turn_id: turn.turn_id, cancel_queued_prompts: true },
  });
  return { turn_id: turn.turn_id, text: "", success: false, error: TURN_INTERRUPTED };
}
