import type { Interaction, InteractionResponse } from "../../schema/interaction.js";
import { commandPrefixSchema, commandWords, type ToolAllowance } from "../../schema/tool-allowance.js";
import type { CommandHost } from "../commands/command-host.js";
import { configure } from "../commands/set.js";
import {
  configuredConfig,
  differenceFrom,
  isEmptyChange,
  setInputOfChange,
} from "../session/session-config.js";
import { approvedInputOf, invalid, isRecord } from "./approval-edit.js";

/**
 * "Allow <tool> for this session" from an approval answer (docs/behaviour.md#allow-for-this-session):
 * `{ decision: "approved", scope: "session", allow?: { command_prefix } }` adds an allowance for the
 * asking tool to the session's configuration, like a `set()`: configured at once, effective at the
 * next Step checkpoint, recorded as an Action. The answer itself, with `responded_by`, is the audit
 * record of who allowed it.
 */

/** The command the approver lets run: their edit's `command`, else the one asked about. */
function approvedCommand(interaction: Interaction, response: InteractionResponse): string {
  const request = interaction.request.payload;
  const input = approvedInputOf(request, response.payload);
  if (isRecord(input) && typeof input.command === "string") return input.command;
  return isRecord(request) && typeof request.command === "string" ? request.command : "";
}

/**
 * The allowance an approval answer grants, or null (scope `once` or none). Checked before anything
 * is committed: a command approval (`operation: "exec"`, the `shell` tool) needs
 * `allow.command_prefix`, whole words the approved command starts with; another tool takes no prefix.
 */
export function allowanceOfAnswer(
  interaction: Interaction,
  response: InteractionResponse,
): ToolAllowance | null {
  if (interaction.request.type !== "approval" || !isRecord(response.payload)) return null;
  const { scope, allow } = response.payload;
  if (scope !== "session") {
    if (allow !== undefined) throw invalid("Session Interaction approval allow needs scope session");
    return null;
  }
  const tool_name = interaction.request.source.tool_name;
  if (tool_name === undefined) throw invalid("Session Interaction approval scope session needs a tool");
  if (allow !== undefined && !isRecord(allow)) {
    throw invalid("Session Interaction approval allow must be an object");
  }
  const extra = Object.keys(allow ?? {}).find((key) => key !== "command_prefix");
  if (extra !== undefined) throw invalid(`Session Interaction approval allow has an unknown field: ${extra}`);
  const request = interaction.request.payload;
  const isCommand = isRecord(request) && request.operation === "exec";
  const raw = allow?.command_prefix;
  if (!isCommand) {
    if (raw !== undefined) {
      throw invalid("Session Interaction approval allow.command_prefix applies only to a command approval");
    }
    return { tool_name };
  }
  if (raw === undefined) {
    throw invalid("Session Interaction approval scope session for a command needs allow.command_prefix");
  }
  const parsed = commandPrefixSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(
      `Session Interaction approval allow.command_prefix is invalid: ${parsed.error.issues[0]?.message ?? ""}`,
    );
  }
  const command = commandWords(approvedCommand(interaction, response));
  if (!commandWords(parsed.data).every((word, index) => command[index] === word)) {
    throw invalid(
      "Session Interaction approval allow.command_prefix must be the start of the approved command",
    );
  }
  return { tool_name, command_prefix: parsed.data };
}

/** Adds `allowance` to the configured list (nothing when it is there already), as `set()` would. */
export async function grantAllowance(host: CommandHost, allowance: ToolAllowance): Promise<void> {
  const record = await host.context.store.getSession(host.session_id);
  if (!record) return;
  const configured = configuredConfig(record);
  const change = differenceFrom(configured, {
    tool_allowances: [...configured.tool_allowances, allowance],
  });
  if (isEmptyChange(change)) return;
  await configure(host, { input: setInputOfChange(change), persist_action: true, publish_mutation: true });
}
