import type { StartsTurn } from "../ports/session-store.js";
import type { PromptCommand } from "../schema/session-command.js";

/**
 * The command a `SessionCommit.starts_turn` records, as every store writes it: the prompt, already
 * `applied` by the Turn it starts.
 */
export function startingPromptCommand(session_id: string, start: StartsTurn): PromptCommand {
  return {
    session_id,
    command_id: start.command_id,
    kind: "prompt",
    input: { query: start.query },
    request_id: start.request_id ?? null,
    turn_id: start.turn_id,
    status: "applied",
    created_at: start.created_at,
  };
}
