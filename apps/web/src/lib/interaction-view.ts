import type { ApprovalPayload, Interaction, InteractionResponse, JsonValue } from "@parley/session-core";

/** Reads an approval payload without trusting it; unknown fields are ignored, wrong types dropped. */
export function readApprovalPayload(payload: unknown): ApprovalPayload | null {
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return null;
  const raw = payload as Record<string, unknown>;
  const operation = raw.operation;
  if (operation !== "exec" && operation !== "start" && operation !== "write" && operation !== "tool")
    return null;
  const text = (key: string) => (typeof raw[key] === "string" ? { [key]: raw[key] as string } : {});
  return {
    operation,
    ...text("command"),
    ...text("cwd"),
    ...text("reason"),
    ...text("tool_description"),
    ...text("model_explanation"),
    ...("validated_input" in raw ? { validated_input: raw.validated_input as JsonValue } : {}),
  };
}

/** Approval answers always agree: `approved` ⇔ outcome `resolved`, `denied` ⇔ outcome `denied`. */
export function buildApprovalResponse(decision: "approved" | "denied"): InteractionResponse {
  return {
    type: "approval",
    outcome: decision === "approved" ? "resolved" : "denied",
    payload: { decision },
  };
}

export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}

export function isTerminal(interaction: Interaction): boolean {
  return interaction.status !== "pending";
}

const cancelReasonText: Record<NonNullable<Interaction["cancel_reason"]>, string> = {
  turn_stopped: "the turn was stopped",
  session_disposed: "the session was closed",
  runtime_interrupted: "the server was interrupted",
};

/**
 * One line saying how a terminal Interaction ended and who ended it, e.g. "Approved by Ada".
 * `nameOf` turns a `responded_by` user id into a display name when the app knows it.
 */
export function describeOutcome(interaction: Interaction, nameOf: (user_id: string) => string): string {
  const by = interaction.responded_by ? ` by ${nameOf(interaction.responded_by)}` : "";
  switch (interaction.status) {
    case "pending":
      return "Waiting for an answer";
    case "resolved":
      return interaction.interaction_type === "approval" ? `Approved${by}` : `Answered${by}`;
    case "denied":
      return interaction.interaction_type === "approval" ? `Denied${by}` : `Declined${by}`;
    case "cancelled":
      return `Cancelled: ${interaction.cancel_reason ? cancelReasonText[interaction.cancel_reason] : "no longer needed"}`;
    case "failed":
      return "Failed";
  }
}
