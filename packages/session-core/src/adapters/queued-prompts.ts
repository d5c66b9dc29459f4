import type { WithdrawPromptResult } from "../schema/queued-prompt.js";
import type { PromptCommand, SessionCommand } from "../schema/session-command.js";

/** A prompt that joined its Turn: an earlier prompt of the same Turn started it. */
function joinedItsTurn(commands: readonly SessionCommand[], index: number): boolean {
  const command = commands[index];
  return (
    command?.kind === "prompt" &&
    commands
      .slice(0, index)
      .some((earlier) => earlier.kind === "prompt" && earlier.turn_id === command.turn_id)
  );
}

/** `SessionStore.listQueuedPrompts` over one session's commands in commit order. */
export function queuedPromptsOf(commands: readonly SessionCommand[]): PromptCommand[] {
  return commands.filter(
    (command, index): command is PromptCommand =>
      command.kind === "prompt" && command.status === "queued" && joinedItsTurn(commands, index),
  );
}

/**
 * `SessionStore.withdrawPrompt` over one session's commands in commit order: the cancelled copy
 * to store (when it changes) and what was found.
 */
export function withdrawPromptIn(
  commands: readonly SessionCommand[],
  request_id: string,
): { index: number; withdrawn: SessionCommand | null; status: WithdrawPromptResult["status"] | "not_found" } {
  const index = commands.findIndex(
    (command) => command.kind === "prompt" && command.request_id === request_id,
  );
  const command = commands[index];
  if (command === undefined) return { index, withdrawn: null, status: "not_found" };
  if (!joinedItsTurn(commands, index)) return { index, withdrawn: null, status: "starts_turn" };
  if (command.status === "applied") return { index, withdrawn: null, status: "applied" };
  if (command.status === "cancelled") return { index, withdrawn: null, status: "withdrawn" };
  return { index, withdrawn: { ...command, status: "cancelled" }, status: "withdrawn" };
}
