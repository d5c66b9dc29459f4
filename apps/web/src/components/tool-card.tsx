"use client";

import type { ToolPart } from "@parley/sdk";
import clsx from "clsx";
import {
  Ban,
  CheckCircle2,
  CircleDashed,
  Hand,
  Loader2,
  MinusCircle,
  ShieldCheck,
  Wrench,
  XCircle,
} from "lucide-react";
import { formatJson } from "@/lib/interaction-view";
import { Collapsible } from "./collapsible";
import { InteractionCard } from "./interaction-card";
import { CopyButton } from "./markdown";
import type { RespondHandler } from "./use-respond";

const stateText: Record<ToolPart["state"], string> = {
  "input-streaming": "Preparing input",
  ready: "Ready",
  "waiting-user": "Waiting for a person",
  running: "Running",
  completed: "Completed",
  failed: "Failed",
};

/** What the card says: a call that ended because a person denied or a Stop cancelled it is not a failure. */
type ShownState = ToolPart["state"] | "denied" | "cancelled";

function shownState(tool: ToolPart): ShownState {
  if (tool.state !== "failed") return tool.state;
  const statuses = (tool.interactions ?? []).map((interaction) => interaction.status);
  if (statuses.includes("denied")) return "denied";
  if (statuses.includes("cancelled")) return "cancelled";
  return "failed";
}

const shownText: Record<ShownState, string> = { ...stateText, denied: "Denied", cancelled: "Cancelled" };

function StateIcon({ state }: { state: ShownState }) {
  switch (state) {
    case "denied":
      return <Ban size={14} aria-hidden />;
    case "cancelled":
      return <MinusCircle size={14} aria-hidden />;
    case "input-streaming":
    case "ready":
      return <CircleDashed size={14} aria-hidden />;
    case "waiting-user":
      return <Hand size={14} aria-hidden />;
    case "running":
      return <Loader2 size={14} aria-hidden className="spin" />;
    case "completed":
      return <CheckCircle2 size={14} aria-hidden />;
    case "failed":
      return <XCircle size={14} aria-hidden />;
  }
}

/**
 * One row per tool call, keyed by `part_id` and updated in place. The state shown is exactly the
 * last one the server published; the card never advances it on its own.
 */
export function ToolCard({
  tool,
  onRespond,
  nameOf,
}: {
  tool: ToolPart;
  onRespond: RespondHandler;
  nameOf: (user_id: string) => string;
}) {
  const input = tool.input !== undefined ? formatJson(tool.input) : tool.input_text;
  const hasInteractions = (tool.interactions ?? []).length > 0;
  const shown = shownState(tool);
  const output =
    tool.state === "completed" && tool.output !== undefined
      ? typeof tool.output === "string"
        ? tool.output
        : formatJson(tool.output)
      : null;
  return (
    <section
      className={clsx("tool-card", `state-${tool.state}`)}
      data-testid="tool-card"
      data-tool-call-id={tool.tool_call_id}
      data-state={tool.state}
      aria-label={`Tool ${tool.tool_name}: ${shownText[shown]}`}
    >
      <header className="tool-head">
        <Wrench size={14} aria-hidden className="tool-icon" />
        <span className="tool-name" title={`call ${tool.tool_call_id}`}>
          {tool.title ?? tool.tool_name}
        </span>
        {tool.auto_approved ? (
          <span className="tag auto-approved" data-testid="auto-approved">
            <ShieldCheck size={12} aria-hidden />
            {tool.auto_approved === "session-tool"
              ? "auto-approved (allowed for this session)"
              : "auto-approved"}
          </span>
        ) : null}
        <span className="tool-head-spacer" />
        <span className={clsx("state-pill", `state-${shown}`)} data-testid="tool-state">
          <StateIcon state={shown} />
          {shownText[shown]}
        </span>
      </header>
      {input ? (
        // An approval or question card shows the call itself; the raw input stays one click away.
        <details
          className="tool-section"
          open={!hasInteractions && tool.state !== "completed" && tool.state !== "failed"}
        >
          <summary>Input</summary>
          <pre className="code-block">{input}</pre>
        </details>
      ) : null}
      {(tool.interactions ?? []).map((interaction) => (
        <InteractionCard
          key={interaction.interaction_id}
          interaction={interaction}
          tool={tool}
          onRespond={onRespond}
          nameOf={nameOf}
        />
      ))}
      {output !== null ? (
        <details className="tool-section" open={!hasInteractions}>
          <summary>Output</summary>
          <div className="output-tools">
            <CopyButton text={output} label="Copy output" />
          </div>
          <Collapsible lines={output.split("\n").length}>
            <pre className="code-block">{output}</pre>
          </Collapsible>
        </details>
      ) : null}
      {shown === "failed" && tool.error ? (
        <p className="tool-error" role="status">
          <XCircle size={14} aria-hidden />
          <span className="break">{tool.error}</span>
        </p>
      ) : null}
    </section>
  );
}
