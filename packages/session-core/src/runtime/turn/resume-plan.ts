import type { AssistantMessage } from "../../schema/messages.js";
import type { ToolPart } from "../../schema/parts.js";

/**
 * What a Turn found in the database does next (docs/behaviour.md#durability), decided from its open
 * assistant message alone:
 * - `interrupt`: the crash cut the model's stream; the Step is not replayed, the Turn ends failed.
 * - `parked`: every tool still open waits for a person (a pending Interaction) — nothing can happen
 *   until an answer arrives, so no process needs to hold the Turn (no lease, no lock, no host).
 * - `resume`: `fail_interrupted` tools may have started their side effect and fail as interrupted;
 *   `rerun` tools run again from their start (their requests re-attach to the stored Interactions,
 *   and an approved answer not yet handed over is handed over once); then the Step loop goes on.
 */
export type ResumePlan =
  | { kind: "interrupt" }
  | { kind: "parked" }
  | { kind: "resume"; fail_interrupted: string[]; rerun: string[] };

/** The tool's latest Interaction was answered `resolved` but never handed over to the tool. */
export function awaitsHandOver(part: ToolPart): boolean {
  const latest = part.interactions?.at(-1);
  return latest?.status === "resolved" && latest.resumed_at === undefined;
}

/** A tool that only waits for a person: `waiting-user` with its latest Interaction pending. */
function waitsForPerson(part: ToolPart): boolean {
  return part.state === "waiting-user" && part.interactions?.at(-1)?.status === "pending";
}

/**
 * `resolved_here`: tools the resuming process answered itself while holding the lease — `running`
 * only because of that answer, so they re-run instead of failing as interrupted.
 */
export function planResume(
  message: AssistantMessage,
  resolved_here: ReadonlySet<string> = new Set(),
): ResumePlan {
  if (message.model_stream === "streaming") return { kind: "interrupt" };
  const tools = message.parts.filter((part): part is ToolPart => part.type === "tool");
  const fail_interrupted: string[] = [];
  const rerun: string[] = [];
  let waiting = 0;
  for (const part of tools) {
    switch (part.state) {
      case "input-streaming":
        fail_interrupted.push(part.tool_call_id);
        break;
      case "running":
        if (resolved_here.has(part.tool_call_id) || awaitsHandOver(part)) rerun.push(part.tool_call_id);
        else fail_interrupted.push(part.tool_call_id);
        break;
      case "ready":
        rerun.push(part.tool_call_id);
        break;
      case "waiting-user":
        rerun.push(part.tool_call_id);
        if (waitsForPerson(part)) waiting += 1;
        break;
      default:
        break;
    }
  }
  if (waiting > 0 && waiting === rerun.length && fail_interrupted.length === 0) return { kind: "parked" };
  return { kind: "resume", fail_interrupted, rerun };
}
