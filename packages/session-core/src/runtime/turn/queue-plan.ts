import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { PromptCommand, SessionCommand, SetCommand, StopCommand } from "../../schema/session-command.js";
import { planResume } from "./resume-plan.js";

/**
 * What a session's queued commands mean now to the process that just took its lease
 * (docs/behaviour.md#commands), decided from the queue (FIFO) and the open messages alone:
 * - an open Turn whose owner is gone comes first: `stop_open_turn` when a stop is queued (it closes
 *   stopped), else `park_open_turn` when it waits for a person and parking is on (its queued prompts
 *   join it once an answer resumes it), else `resume_open_turn`;
 * - with no open Turn, a queued stop means `cancel_queued`: the prompts queued for the Turn that
 *   never started (`turn_id`, the first prompt's) are cancelled and every queued stop is answered;
 * - else the first queued prompt starts its Turn (`start_turn`) after the `set` commands ahead of it;
 * - else `nothing`: the lease is given back.
 */
export type QueuePlan =
  | { kind: "stop_open_turn"; message: AssistantMessage; reason: CancelReason }
  | { kind: "park_open_turn"; message: AssistantMessage }
  | { kind: "resume_open_turn"; message: AssistantMessage }
  | { kind: "cancel_queued"; turn_id: string | null; cancelled_prompts: number; stop_command_ids: string[] }
  | { kind: "start_turn"; turn_id: string; prompt: PromptCommand; configs: SetCommand[] }
  | { kind: "nothing" };

/** The first queued stop: the one whose reason a Turn stops with. */
export function queuedStop(commands: readonly SessionCommand[]): StopCommand | undefined {
  return commands.find((command): command is StopCommand => command.kind === "stop");
}

/**
 * Whether the queue needs a driver: a prompt or a stop. `set` commands alone wait for the next
 * checkpoint (they are applied with the next Turn's start).
 */
export function queueNeedsDriver(commands: readonly SessionCommand[]): boolean {
  return commands.some((command) => command.kind !== "set");
}

export function planQueue(
  commands: readonly SessionCommand[],
  open: readonly SessionMessage[],
  options: { park_waiting_turns: boolean },
): QueuePlan {
  const stop = queuedStop(commands);
  const orphan = open[open.length - 1];
  if (orphan?.type === "assistant") {
    if (stop) return { kind: "stop_open_turn", message: orphan, reason: stop.input.reason };
    if (options.park_waiting_turns && planResume(orphan).kind === "parked") {
      return { kind: "park_open_turn", message: orphan };
    }
    return { kind: "resume_open_turn", message: orphan };
  }
  if (stop) {
    const prompts = commands.filter((command) => command.kind === "prompt");
    return {
      kind: "cancel_queued",
      turn_id: prompts[0]?.turn_id ?? null,
      cancelled_prompts: prompts.length,
      stop_command_ids: commands.filter((command) => command.kind === "stop").map((c) => c.command_id),
    };
  }
  const index = commands.findIndex((command) => command.kind === "prompt");
  const prompt = commands[index];
  if (prompt?.kind !== "prompt" || prompt.turn_id === null) return { kind: "nothing" };
  const configs = commands.slice(0, index).filter((command): command is SetCommand => command.kind === "set");
  return { kind: "start_turn", turn_id: prompt.turn_id, prompt, configs };
}
