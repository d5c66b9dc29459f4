"use client";

import type { Interaction, ToolPart } from "@parley/session-core";
import clsx from "clsx";
import { CheckCircle2, Clock, HelpCircle, ShieldQuestion, XCircle } from "lucide-react";
import { describeOutcome } from "@/lib/interaction-view";
import { ApprovalBody } from "./approval-body";
import { QuestionForm } from "./question-form";
import { SchemaForm } from "./schema-form";
import type { RespondHandler } from "./use-respond";

export interface InteractionCardProps {
  interaction: Interaction;
  /** The owning tool call, when the card is shown inside its session. */
  tool?: ToolPart;
  onRespond: RespondHandler;
  nameOf: (user_id: string) => string;
  /** Extra context rendered under the card title (the inbox shows session and owner here). */
  context?: React.ReactNode;
}

/** An Interaction card keyed by `interaction_id`; terminal statuses disable every control. */
export function InteractionCard({ interaction, tool, onRespond, nameOf, context }: InteractionCardProps) {
  const outcome = interaction.status === "pending" ? null : describeOutcome(interaction, nameOf);
  const isApproval = interaction.interaction_type === "approval";
  const title = isApproval
    ? `Approve ${interaction.request.source.tool_name ?? tool?.tool_name ?? "tool call"}?`
    : (interaction.request.title ?? "The agent has a question");
  return (
    <section
      className={clsx(
        "interaction-card",
        `status-${interaction.status}`,
        isApproval ? "approval" : "question",
      )}
      data-testid="interaction-card"
      data-interaction-id={interaction.interaction_id}
      data-status={interaction.status}
      aria-label={title}
    >
      <header className="interaction-head">
        {isApproval ? <ShieldQuestion size={16} aria-hidden /> : <HelpCircle size={16} aria-hidden />}
        <h3 className="interaction-title">{title}</h3>
        <StatusPill interaction={interaction} />
      </header>
      {context}
      {interaction.request.description ? <p className="muted">{interaction.request.description}</p> : null}
      {isApproval ? (
        <ApprovalBody interaction={interaction} onRespond={onRespond} outcome={outcome} />
      ) : interaction.interaction_type === "question" ? (
        <QuestionForm interaction={interaction} onRespond={onRespond} outcome={outcome} />
      ) : (
        <SchemaForm interaction={interaction} onRespond={onRespond} outcome={outcome} />
      )}
    </section>
  );
}

function StatusPill({ interaction }: { interaction: Interaction }) {
  const text: Record<Interaction["status"], string> = {
    pending: "Pending",
    resolved: interaction.interaction_type === "approval" ? "Approved" : "Answered",
    denied: interaction.interaction_type === "approval" ? "Denied" : "Declined",
    cancelled: "Cancelled",
    failed: "Failed",
  };
  const Icon =
    interaction.status === "pending" ? Clock : interaction.status === "resolved" ? CheckCircle2 : XCircle;
  return (
    <span className={clsx("status-pill", `status-${interaction.status}`)} data-testid="interaction-status">
      <Icon size={13} aria-hidden />
      {text[interaction.status]}
    </span>
  );
}
