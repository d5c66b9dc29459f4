"use client";

import { Check, X } from "lucide-react";
import { buildApprovalResponse, formatJson, readApprovalPayload } from "@/lib/interaction-view";
import { errorText, type InteractionBodyProps, useRespond } from "./use-respond";

/** The real call behind an approval, exactly as the server validated it, and the decision buttons. */
export function ApprovalBody({ interaction, onRespond, outcome }: InteractionBodyProps) {
  const payload = readApprovalPayload(interaction.request.payload);
  const { submit, busy, sent, error, locked } = useRespond(interaction, onRespond);
  const source = interaction.request.source;
  return (
    <div className="approval-body">
      <dl className="facts">
        <div>
          <dt>Tool</dt>
          <dd>
            <code>{source.tool_name ?? "unknown"}</code>
          </dd>
        </div>
        <div>
          <dt>Call</dt>
          <dd>
            <code className="break">{source.tool_call_id}</code>
          </dd>
        </div>
      </dl>
      {payload?.command !== undefined ? (
        <div className="approval-section">
          <p className="section-label">Command</p>
          <pre className="code-block shell" data-testid="approval-command">
            <span aria-hidden className="prompt-sign">
              ${" "}
            </span>
            {payload.command}
          </pre>
          {payload.cwd ? (
            <p className="small muted" data-testid="approval-cwd">
              Working directory <code>{payload.cwd}</code>
              {payload.cwd.startsWith("/") ? null : " (relative to the session workspace)"}
            </p>
          ) : null}
          {payload.reason ? <p className="small">Reason: {payload.reason}</p> : null}
        </div>
      ) : null}
      {payload?.validated_input !== undefined ? (
        <div className="approval-section">
          <p className="section-label">Input (validated)</p>
          <pre className="code-block" data-testid="approval-input">
            {formatJson(payload.validated_input)}
          </pre>
        </div>
      ) : null}
      {payload === null ? (
        <div className="approval-section">
          <p className="section-label">Request</p>
          <pre className="code-block">{formatJson(interaction.request.payload)}</pre>
        </div>
      ) : null}
      {payload?.tool_description ? (
        <div className="approval-section">
          <p className="section-label">What this tool does</p>
          <p>{payload.tool_description}</p>
        </div>
      ) : null}
      {payload?.model_explanation ? (
        <blockquote className="model-claim">
          <p className="section-label">The model's explanation (its claim, not verified)</p>
          <p>{payload.model_explanation}</p>
        </blockquote>
      ) : null}
      <div className="card-actions">
        <button
          type="button"
          className="button primary icon-text"
          disabled={locked}
          onClick={() => submit(buildApprovalResponse("approved"))}
        >
          <Check size={16} aria-hidden />
          <span>Approve</span>
        </button>
        <button
          type="button"
          className="button danger-outline icon-text"
          disabled={locked}
          onClick={() => submit(buildApprovalResponse("denied"))}
        >
          <X size={16} aria-hidden />
          <span>Deny</span>
        </button>
        {outcome ? (
          <span className="interaction-outcome" data-testid="interaction-outcome">
            {outcome}
          </span>
        ) : (
          <span className="card-note" role="status">
            {busy ? "Sending…" : sent ? "Answer sent — waiting for the agent" : ""}
          </span>
        )}
      </div>
      {error ? (
        <p className="field-error" role="alert" data-testid="interaction-error">
          {errorText(error)}
        </p>
      ) : null}
    </div>
  );
}
