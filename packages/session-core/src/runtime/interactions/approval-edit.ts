import { ParleyError } from "../../errors.js";
import type { Interaction, InteractionResponse } from "../../schema/interaction.js";
import type { JsonValue } from "../../schema/json.js";
import type { AgentDefinition } from "../session/session-facade.js";

/**
 * Edit before approve: an approval answer may carry `payload.edited_input`, the approver's version
 * of the request's `validated_input`, which the tool then runs with instead (`approvedInputOf`, also
 * on a replay, from the stored answer). The edit is checked in two steps, both before anything is
 * committed, so a refused edit leaves the Interaction pending.
 */

export function invalid(message: string): ParleyError {
  return new ParleyError("interaction_invalid_response", message);
}

export function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function editedInputOf(response: InteractionResponse): JsonValue | undefined {
  return isRecord(response.payload) ? response.payload.edited_input : undefined;
}

/** The input an approved call runs with: the approver's edit, else the `validated_input` asked about. */
export function approvedInputOf(
  requestPayload: JsonValue | undefined,
  responsePayload: JsonValue | undefined,
): JsonValue | undefined {
  const edited = isRecord(responsePayload) ? responsePayload.edited_input : undefined;
  if (edited !== undefined) return edited;
  return isRecord(requestPayload) ? requestPayload.validated_input : undefined;
}

/**
 * What the stored Interaction alone decides: an edit needs an approving answer and a request that
 * showed a `validated_input` to edit, and it is an object of fields like that input.
 */
export function assertEditAllowed(interaction: Interaction, response: InteractionResponse): void {
  const edited = editedInputOf(response);
  if (edited === undefined) return;
  const decision = isRecord(response.payload) ? response.payload.decision : undefined;
  if (decision !== "approved") {
    throw invalid("Session Interaction approval edited_input needs decision approved");
  }
  const request = interaction.request.payload;
  if (!isRecord(request) || request.validated_input === undefined) {
    throw invalid("Session Interaction approval has no validated_input to edit");
  }
  if (!isRecord(edited)) throw invalid("Session Interaction approval edited_input must be an object");
}

/**
 * The edit must pass the input schema of the tool that asked, looked up by the stored request's
 * `source.tool_name` in the session's agent definition, so any process can check it from the
 * stored request alone. A tool the agent no longer has cannot check an edit, so the edit is refused.
 */
export function assertEditFitsTool(
  interaction: Interaction,
  response: InteractionResponse,
  agent: AgentDefinition | undefined,
): void {
  const edited = editedInputOf(response);
  if (edited === undefined) return;
  const tool_name = interaction.request.source.tool_name;
  const tool = tool_name === undefined ? undefined : agent?.tools[tool_name];
  if (tool === undefined) {
    throw invalid(
      `Session Interaction approval edited_input cannot be checked: tool ${tool_name ?? "(unnamed)"} is not known`,
    );
  }
  const parsed = tool.input_schema.safeParse(edited);
  if (parsed.success) return;
  const [first] = parsed.error.issues;
  const where = first === undefined || first.path.length === 0 ? "" : `.${first.path.join(".")}`;
  throw invalid(
    `Session Interaction approval edited_input does not match ${tool_name}'s input: edited_input${where} ${first?.message ?? "is invalid"}`,
  );
}
