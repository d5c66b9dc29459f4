"use client";

import type { Interaction, ToolPart } from "@parley/sdk";
import clsx from "clsx";
import {
  Ban,
  CheckCircle2,
  ChevronDown,
  ChevronRight,
  Clock,
  HelpCircle,
  MinusCircle,
  ShieldQuestion,
  XCircle,
} from "lucide-react";
import { useId, useState } from "react";
import { describeOutcome } from "@/lib/interaction-view";
import { ApprovalBody } from "./approval-body";
import { QuestionForm } from "./question-form";
import { SchemaForm } from "./schema-form";
import type { RespondHandler } from "./use-respond";

export interface InteractionCardProps {
  interaction: Interaction;
  /** The owning tool call, when the card is shown inside its session (its header names the tool). */
  tool?: ToolPart;
  onRespond: RespondHandler;
  nameOf: (user_id: string) => string;
  /** Extra context rendered under the card title (the inbox shows session and owner here). */
  context?: React.ReactNode;
}

function cardTitle(interaction: Interaction, insideTool: boolean): string {
  if (interaction.interaction_type !== "approval")
    return interaction.request.title ?? "The agent has a question";
  const tool_name = interaction.request.source.tool_name ?? "tool call";
  // Inside its tool card the tool is already named in the header: say what is asked, once.
  return insideTool ? "Approval needed" : `Approve ${tool_name}?`;
}

/**
 * An Interaction card keyed by `interaction_id`. Pending: the full request with its controls.
 * Answered, denied or cancelled: one line saying how it ended, expandable to the full request.
 * The card itself is focusable, so focus can move to a new request and stay there after an answer.
 */
export function InteractionCard({ interaction, tool, onRespond, nameOf, context }: InteractionCardProps) {
  const outcome = interaction.status === "pending" ? null : describeOutcome(interaction, nameOf);
  const isApproval = interaction.interaction_type === "approval";
  const title = cardTitle(interaction, tool !== undefined);
  const [expanded, setExpanded] = useState(false);
  const bodyId = useId();
  const open = outcome === null || expanded;
  // The body stays at one place in the tree whether the card is pending or answered, so its state
  // (e.g. "someone else answered first") survives the change; folded, it shows only such an error.
  const body = isApproval ? (
    <ApprovalBody
      interaction={interaction}
      onRespond={onRespond}
      outcome={outcome}
      expanded={open}
      nameOf={nameOf}
    />
  ) : interaction.interaction_type === "question" ? (
    <QuestionForm interaction={interaction} onRespond={onRespond} outcome={outcome} expanded={open} />
  ) : open ? (
    <SchemaForm interaction={interaction} onRespond={onRespond} outcome={outcome} expanded={open} />
  ) : null;
  return (
    <section
      className={clsx(
        "interaction-card",
        `status-${interaction.status}`,
        isApproval ? "approval" : "question",
        outcome && "answered",
      )}
      data-testid="interaction-card"
      data-interaction-id={interaction.interaction_id}
      data-interaction-type={interaction.interaction_type}
      data-status={interaction.status}
      tabIndex={-1}
      aria-label={outcome ? `${title}: ${outcome}` : title}
    >
      {outcome ? (
        <button
          type="button"
          className="answered-summary"
          aria-expanded={expanded}
          aria-controls={bodyId}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
          <StatusPill interaction={interaction} />
          <span className="answered-title">{title}</span>
          <span className="muted small answered-outcome" data-testid="interaction-outcome-line">
            {outcome}
          </span>
        </button>
      ) : (
        <header className="interaction-head">
          {isApproval ? <ShieldQuestion size={16} aria-hidden /> : <HelpCircle size={16} aria-hidden />}
          <h3 className="interaction-title">{title}</h3>
          <StatusPill interaction={interaction} />
        </header>
      )}
      <div id={bodyId} className="interaction-body">
        {open ? context : null}
        {open && interaction.request.description ? (
          <p className="muted">{interaction.request.description}</p>
        ) : null}
        {body}
      </div>
    </section>
  );
}

/** Human decisions read as decisions (neutral), not as failures. */
function StatusPill({ interaction }: { interaction: Interaction }) {
  const text: Record<Interaction["status"], string> = {
    pending: "Pending",
    resolved: interaction.interaction_type === "approval" ? "Approved" : "Answered",
    denied: interaction.interaction_type === "approval" ? "Denied" : "Declined",
    cancelled: "Cancelled",
    failed: "Failed",
  };
  const Icon =
    interaction.status === "pending"
      ? Clock
      : interaction.status === "resolved"
        ? CheckCircle2
        : interaction.status === "denied"
          ? Ban
          : interaction.status === "cancelled"
            ? MinusCircle
            : XCircle;
  return (
    <span className={clsx("status-pill", `status-${interaction.status}`)} data-testid="interaction-status">
      <Icon size={13} aria-hidden />
      {text[interaction.status]}
    </span>
  );
}
