import type { ApprovalPayload, Interaction, InteractionResponse, JsonValue } from "@parley/sdk";
import { structuredPatch } from "diff";

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
    ...readTarget(raw.target),
    ...readWorkspace(raw.workspace),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readTarget(value: unknown): Pick<ApprovalPayload, "target"> {
  if (!isRecord(value) || typeof value.path !== "string" || typeof value.exists !== "boolean") return {};
  return {
    target: {
      path: value.path,
      exists: value.exists,
      ...(typeof value.size_bytes === "number" ? { size_bytes: value.size_bytes } : {}),
      ...(typeof value.previous_content === "string" ? { previous_content: value.previous_content } : {}),
    },
  };
}

function readWorkspace(value: unknown): Pick<ApprovalPayload, "workspace"> {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.cwd !== "string") return {};
  return { workspace: { name: value.name, cwd: value.cwd } };
}

/** One line of a unified diff, typed for rendering. */
export interface DiffLine {
  readonly kind: "hunk" | "add" | "del" | "context";
  readonly text: string;
}

/** The unified diff (3 lines of context) from `before` to `after`, as lines; empty when equal. */
export function unifiedDiff(before: string, after: string): DiffLine[] {
  const patch = structuredPatch("before", "after", before, after, "", "", { context: 3 });
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({
      kind: "hunk",
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) continue;
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "context";
      lines.push({ kind, text: line });
    }
  }
  return lines;
}

/** "12 bytes", "3.4 KB", "1.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Approval answers always agree: `approved` ⇔ outcome `resolved`, `denied` ⇔ outcome `denied`. */
export function buildApprovalResponse(
  decision: "approved" | "denied",
  options: {
    reason?: string;
    allow_tool_for_session?: boolean;
    /** For a command approval: the prefix later commands must start with to run unasked. */
    command_prefix?: string;
    edited_input?: JsonValue;
  } = {},
): InteractionResponse {
  const reason = options.reason?.trim();
  return {
    type: "approval",
    outcome: decision === "approved" ? "resolved" : "denied",
    payload: {
      decision,
      ...(decision === "denied" && reason ? { reason } : {}),
      ...(decision === "approved" && options.allow_tool_for_session ? { scope: "session" } : {}),
      ...(decision === "approved" && options.allow_tool_for_session && options.command_prefix !== undefined
        ? { allow: { command_prefix: options.command_prefix } }
        : {}),
      ...(decision === "approved" && options.edited_input !== undefined
        ? { edited_input: options.edited_input }
        : {}),
    },
  };
}

/** Declining a question (G42, docs/behaviour.md#questions-ask_question): no answers at all. */
export function buildQuestionDecline(): InteractionResponse {
  return { type: "question", outcome: "denied", payload: {} };
}

/** The reason a denied approval carried, if any. */
export function denialReason(interaction: Interaction): string | null {
  const payload = interaction.response?.payload;
  return isRecord(payload) && typeof payload.reason === "string" && payload.reason !== ""
    ? payload.reason
    : null;
}

export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
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
    case "resolved": {
      if (interaction.interaction_type !== "approval") return `Answered${by}`;
      const payload = interaction.response?.payload;
      const approved =
        isRecord(payload) && payload.scope === "session" ? "Approved for this session" : "Approved";
      // The approver changed the call before approving it: say so, and who.
      if (isRecord(payload) && payload.edited_input !== undefined) return `${approved}, edited${by}`;
      return `${approved}${by}`;
    }
    case "denied":
      return interaction.interaction_type === "approval" ? `Denied${by}` : `Declined${by}`;
    case "cancelled":
      return `Cancelled: ${interaction.cancel_reason ? cancelReasonText[interaction.cancel_reason] : "no longer needed"}`;
    case "failed":
      return "Could not be completed";
  }
}
