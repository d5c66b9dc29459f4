import { ParleyError } from "../../errors.js";
import type {
  CancelReason,
  Interaction,
  InteractionResponse,
  InteractionResult,
} from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { ToolPart } from "../../schema/parts.js";
import { assertRespondable } from "../interactions/respond-validation.js";
import { type AssistantTransition, assertOpen, findToolIndex, replacePart } from "./transition.js";

/**
 * Interaction changes (docs/behaviour.md#interactions). Each is one revision that changes the
 * Interaction and its tool together, published as one `part` mutation of the owning tool part.
 */

/** The result a waiter receives for a terminal Interaction; null while it is pending. */
export function interactionResultOf(interaction: Interaction): InteractionResult | null {
  const { interaction_id } = interaction;
  switch (interaction.status) {
    case "pending":
      return null;
    case "resolved":
      if (!interaction.response)
        return { status: "failed", interaction_id, error: "Interaction has no response" };
      return { status: "resolved", interaction_id, response: interaction.response };
    case "denied": {
      const payload = interaction.response?.payload;
      const reason =
        typeof payload === "object" && payload !== null && !Array.isArray(payload)
          ? payload.reason
          : undefined;
      return typeof reason === "string"
        ? { status: "denied", interaction_id, reason }
        : { status: "denied", interaction_id };
    }
    case "cancelled":
      return { status: "cancelled", interaction_id, reason: interaction.cancel_reason ?? "turn_stopped" };
    case "failed":
      return { status: "failed", interaction_id, error: "Interaction failed" };
  }
}

/** Creation: the tool (ready, running or already waiting) goes `waiting-user` with the new `pending` entry. */
export function requestInteraction(
  message: AssistantMessage,
  input: { tool_call_id: string; ordinal: number; interaction: Interaction },
): AssistantTransition {
  const index = findToolIndex(message, input.tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || message.status !== "streaming") {
    throw new Error(`Streaming Tool Part not found: ${input.tool_call_id}`);
  }
  if (part.state !== "ready" && part.state !== "running" && part.state !== "waiting-user") {
    throw new Error(`Tool Interaction requires ready input: ${input.tool_call_id} (${part.state})`);
  }
  const interactions = part.interactions ?? [];
  if (input.ordinal !== interactions.length) {
    throw new Error(
      `Tool Interaction ordinal ${input.ordinal} does not follow ${interactions.length}: ${input.tool_call_id}`,
    );
  }
  const next: ToolPart = {
    ...part,
    state: "waiting-user",
    interactions: [...interactions, input.interaction],
  };
  return {
    message: replacePart(message, index, next),
    mutation: { variant: "part", part_id: part.part_id },
    interaction_changes: [{ tool_call_id: part.tool_call_id, ordinal: input.ordinal, kind: "created" }],
  };
}

/** The tool part holding Interaction `interaction_id` (its index, and the Interaction's ordinal in it). */
export function locateInteraction(message: AssistantMessage, interaction_id: string) {
  for (const [index, part] of message.parts.entries()) {
    if (part.type !== "tool") continue;
    const ordinal = (part.interactions ?? []).findIndex((item) => item.interaction_id === interaction_id);
    const interaction = part.interactions?.[ordinal];
    if (interaction) return { index, part, ordinal, interaction };
  }
  return null;
}

/** Answer: `resolved` → tool `running`; `denied` → tool `failed` ("Interaction denied"). */
export function respondToInteraction(
  message: AssistantMessage,
  input: { interaction_id: string; response: InteractionResponse; responded_by?: string },
  now: number,
): AssistantTransition<InteractionResult> {
  const found = locateInteraction(message, input.interaction_id);
  if (!found) {
    throw new ParleyError(
      "interaction_not_found",
      `Pending Session Interaction not found: ${input.interaction_id}`,
    );
  }
  assertRespondable(found.interaction, input.response);
  assertOpen(message);
  const answered: Interaction = {
    ...found.interaction,
    status: input.response.outcome,
    response: input.response,
    resolved_at: now,
    ...(input.responded_by === undefined ? {} : { responded_by: input.responded_by }),
  };
  const interactions = (found.part.interactions ?? []).slice();
  interactions[found.ordinal] = answered;
  const stillWaiting = interactions.some((item) => item.status === "pending");
  const tool: ToolPart =
    input.response.outcome === "denied"
      ? { ...found.part, interactions, state: "failed", error: "Interaction denied" }
      : { ...found.part, interactions, state: stillWaiting ? "waiting-user" : "running" };
  const value = interactionResultOf(answered);
  if (!value) throw new Error(`Interaction did not become terminal: ${input.interaction_id}`);
  return {
    message: replacePart(message, found.index, tool),
    mutation: { variant: "part", part_id: found.part.part_id },
    interaction_changes: [
      { tool_call_id: found.part.tool_call_id, ordinal: found.ordinal, kind: input.response.outcome },
    ],
    value,
  };
}

/** Cancellation (stop, close): `cancelled` with its reason; a waiting tool fails ("Interaction cancelled"). */
/**
 * Records that the tool waiting on a `resolved` Interaction continues with its answer now (the
 * approved side effect runs exactly once, docs/behaviour.md#durability). Unpublished bookkeeping;
 * null when there is nothing to record (not resolved, already handed over, or gone).
 */
export function markInteractionResumed(
  message: AssistantMessage,
  interaction_id: string,
  now: number,
): AssistantTransition | null {
  const found = locateInteraction(message, interaction_id);
  if (found?.interaction.status !== "resolved" || found.interaction.resumed_at !== undefined) {
    return null;
  }
  const interactions = (found.part.interactions ?? []).slice();
  interactions[found.ordinal] = { ...found.interaction, resumed_at: now };
  return {
    message: replacePart(message, found.index, { ...found.part, interactions }),
    mutation: { variant: "part", part_id: found.part.part_id },
    interaction_changes: [
      { tool_call_id: found.part.tool_call_id, ordinal: found.ordinal, kind: "resolved" },
    ],
    publish: false,
  };
}

export function cancelInteraction(
  message: AssistantMessage,
  input: { interaction_id: string; reason: CancelReason },
  now: number,
): AssistantTransition | null {
  const found = locateInteraction(message, input.interaction_id);
  if (found?.interaction.status !== "pending" || message.status !== "streaming") return null;
  const interactions = (found.part.interactions ?? []).slice();
  interactions[found.ordinal] = {
    ...found.interaction,
    status: "cancelled",
    cancel_reason: input.reason,
    resolved_at: now,
  };
  const tool: ToolPart =
    found.part.state === "waiting-user"
      ? { ...found.part, interactions, state: "failed", error: "Interaction cancelled" }
      : { ...found.part, interactions };
  return {
    message: replacePart(message, found.index, tool),
    mutation: { variant: "part", part_id: found.part.part_id },
    interaction_changes: [
      { tool_call_id: found.part.tool_call_id, ordinal: found.ordinal, kind: "cancelled" },
    ],
  };
}

/** Pending Interactions of a message, in occurrence order. */
export function pendingInteractionsOf(message: AssistantMessage): Interaction[] {
  return message.parts.flatMap((part) =>
    part.type === "tool" ? (part.interactions ?? []).filter((item) => item.status === "pending") : [],
  );
}

export type AutoApproval = NonNullable<ToolPart["auto_approved"]>;

/**
 * The tool ran without asking: under `always-allow`, or because a person allowed this tool for the
 * rest of the session. Published, so the card shows the mark; null when the part is gone or marked.
 */
export function markToolAutoApproved(
  message: AssistantMessage,
  tool_call_id: string,
  how: AutoApproval,
): AssistantTransition | null {
  const index = findToolIndex(message, tool_call_id);
  const part = message.parts[index];
  if (part?.type !== "tool" || part.auto_approved === how) return null;
  return {
    message: replacePart(message, index, { ...part, auto_approved: how }),
    mutation: { variant: "part", part_id: part.part_id },
  };
}
