"use client";

import type { ToolPart } from "@parley/session-core";
import clsx from "clsx";
import { CheckCircle2, CircleDashed, Hand, Loader2, Wrench, XCircle } from "lucide-react";
import { formatJson } from "@/lib/interaction-view";
import { InteractionCard } from "./interaction-card";
import type { RespondHandler } from "./use-respond";

const stateText: Record<ToolPart["state"], string> = {
  "input-streaming": "Preparing input",
  ready: "Ready",
  "waiting-user": "Waiting for a person",
  running: "Running",
  completed: "Completed",
  failed: "Failed",
};

function StateIcon({ state }: { state: ToolPart["state"] }) {
  switch (state) {
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
  return (
    <section
      className={clsx("tool-card", `state-${tool.state}`)}
      data-testid="tool-card"
      data-tool-call-id={tool.tool_call_id}
      data-state={tool.state}
      aria-label={`Tool ${tool.tool_name}: ${stateText[tool.state]}`}
    >
      <header className="tool-head">
        <Wrench size={14} aria-hidden className="tool-icon" />
        <span className="tool-name">{tool.title ?? tool.tool_name}</span>
        <code className="tool-call-id" title="tool_call_id">
          {tool.tool_call_id}
        </code>
        <span className={clsx("state-pill", `state-${tool.state}`)} data-testid="tool-state">
          <StateIcon state={tool.state} />
          {stateText[tool.state]}
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
      {tool.state === "completed" && tool.output !== undefined ? (
        <details className="tool-section" open={!hasInteractions}>
          <summary>Output</summary>
          <pre className="code-block">
            {typeof tool.output === "string" ? tool.output : formatJson(tool.output)}
          </pre>
        </details>
      ) : null}
      {tool.state === "failed" && tool.error ? (
        <p className="tool-error" role="status">
          <XCircle size={14} aria-hidden />
          <span className="break">{tool.error}</span>
        </p>
      ) : null}
    </section>
  );
}
