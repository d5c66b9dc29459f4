"use client";

import type { ApprovalPayload, Interaction, JsonValue } from "@parley/sdk";
import { Check, CheckCheck, FilePlus2, FileX2, FolderOpen, Pencil, X } from "lucide-react";
import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { readEditFields } from "@/lib/approval-edit";
import {
  buildApprovalResponse,
  denialReason,
  formatBytes,
  formatJson,
  readApprovalPayload,
  unifiedDiff,
} from "@/lib/interaction-view";
import { ApprovalChanges } from "./approval-changes";
import { ApprovalEditForm } from "./approval-edit-form";
import { useConnection } from "./connection-provider";
import { DiffView } from "./diff-view";
import { AnswerError } from "./form-fields";
import { type InteractionBodyProps, useRespond } from "./use-respond";

function inputField(payload: ApprovalPayload | null, key: string): string | undefined {
  const input = payload?.validated_input;
  if (!input || typeof input !== "object" || Array.isArray(input)) return undefined;
  const value = (input as Record<string, JsonValue | undefined>)[key];
  return typeof value === "string" ? value : undefined;
}

/** The file a file call acts on: the server's resolved target, else the path the model gave. */
function targetPath(payload: ApprovalPayload): string {
  return payload.target?.path ?? inputField(payload, "path") ?? "?";
}

/**
 * Per file tool, its icon, the test id of its effect tag, and the tag's words: `unread` when the
 * server did not look at the file, `verb` and its size when it exists, else `missing`.
 */
const FILE_EFFECTS = {
  write_file: {
    Icon: FilePlus2,
    testId: "write-effect",
    unread: "writes the file",
    verb: "overwrites",
    missing: "new file",
  },
  delete_file: {
    Icon: FileX2,
    testId: "delete-effect",
    unread: "deletes the file",
    verb: "deletes",
    missing: "file not found now",
  },
} as const;

/** What a file call does to its file: the path, the effect as a tag and any `detail` on one line, then the rest (a diff). */
function FileEffect({
  tool,
  payload,
  detail,
  children,
}: {
  tool: keyof typeof FILE_EFFECTS;
  payload: ApprovalPayload;
  detail?: ReactNode;
  children?: ReactNode;
}) {
  const { Icon, testId, unread, verb, missing } = FILE_EFFECTS[tool];
  const target = payload.target;
  return (
    <div className="approval-section" data-testid="approval-effect">
      <p className="effect-line">
        <Icon size={15} aria-hidden />
        <code className="break">{targetPath(payload)}</code>
        <span className="tag" data-testid={testId}>
          {target === undefined
            ? unread
            : target.exists
              ? `${verb} ${formatBytes(target.size_bytes ?? 0)}`
              : missing}
        </span>
        {detail}
      </p>
      {children}
    </div>
  );
}

/** What the call will do, per operation: a diff for writes, the size for deletes, where a command runs. */
function Effect({ interaction, payload }: { interaction: Interaction; payload: ApprovalPayload | null }) {
  const tool_name = interaction.request.source.tool_name;
  if (payload === null) {
    return <pre className="code-block">{formatJson(interaction.request.payload)}</pre>;
  }
  if (payload.command !== undefined) {
    return (
      <div className="approval-section">
        <pre className="code-block shell" data-testid="approval-command">
          <span aria-hidden className="prompt-sign">
            ${" "}
          </span>
          {payload.command}
        </pre>
        <p className="small muted icon-text" data-testid="approval-cwd">
          <FolderOpen size={13} aria-hidden />
          <span>
            Runs in{" "}
            {payload.workspace ? (
              <>
                <strong>{payload.workspace.name}</strong> ·{" "}
                <code className="break">{payload.workspace.cwd}</code>
              </>
            ) : (
              <code>{payload.cwd ?? "."}</code>
            )}
          </span>
        </p>
        {payload.reason ? <p className="small">Reason: {payload.reason}</p> : null}
      </div>
    );
  }
  if (tool_name === "write_file") {
    const content = inputField(payload, "content") ?? "";
    const target = payload.target;
    const diff =
      target?.exists && target.previous_content !== undefined
        ? unifiedDiff(target.previous_content, content)
        : target && !target.exists
          ? unifiedDiff("", content)
          : null;
    return (
      <FileEffect
        tool="write_file"
        payload={payload}
        detail={
          <span className="muted small">→ {formatBytes(new TextEncoder().encode(content).length)}</span>
        }
      >
        {diff ? (
          diff.length === 0 ? (
            <p className="muted small">No change: the content is the same as the file's.</p>
          ) : (
            <DiffView lines={diff} label={`Changes to ${targetPath(payload)}:`} testId="approval-diff" />
          )
        ) : (
          <>
            {target?.exists ? (
              <p className="muted small">The current file is too large or not text, so no diff is shown.</p>
            ) : null}
            <pre className="code-block">{content}</pre>
          </>
        )}
      </FileEffect>
    );
  }
  if (tool_name === "delete_file") {
    return <FileEffect tool="delete_file" payload={payload} />;
  }
  return payload.validated_input !== undefined ? (
    <div className="approval-section">
      <pre className="code-block" data-testid="approval-input">
        {formatJson(payload.validated_input)}
      </pre>
    </div>
  ) : null;
}

/**
 * The call's effect, the model's explanation, and Approve / Edit / Deny (with a reason the agent
 * sees). Answered with an edit, it also shows who edited the call and what changed.
 */
export function ApprovalBody({
  interaction,
  onRespond,
  outcome,
  expanded,
  nameOf,
}: InteractionBodyProps & { nameOf: (user_id: string) => string }) {
  const payload = readApprovalPayload(interaction.request.payload);
  // A command is allowed for the session only by a prefix the approver sees and may edit.
  const isCommand = payload?.operation === "exec";
  const [commandPrefix, setCommandPrefix] = useState(() =>
    (payload?.command ?? "").trim().split(/\s+/).slice(0, 2).join(" "),
  );
  const { submit, busy, sent, error, locked } = useRespond(interaction, onRespond);
  const { online } = useConnection();
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const [editing, setEditing] = useState(false);
  const editButtonRef = useRef<HTMLButtonElement>(null);
  const editFields = readEditFields(payload?.validated_input);
  const reasonRef = useRef<HTMLInputElement>(null);
  const reasonId = useId();
  const pending = interaction.status === "pending";
  const deniedWith = interaction.status === "denied" ? denialReason(interaction) : null;
  const disabled = locked || !online;

  function openDeny() {
    setEditing(false);
    setDenying(true);
    window.requestAnimationFrame(() => reasonRef.current?.focus());
  }

  function closeEdit() {
    setEditing(false);
    window.requestAnimationFrame(() => editButtonRef.current?.focus());
  }

  function confirmDeny(event: FormEvent) {
    event.preventDefault();
    void submit(buildApprovalResponse("denied", { reason }));
  }

  const errorLine = <AnswerError error={error} />;
  if (!expanded) return errorLine;
  return (
    <div className="approval-body">
      <Effect interaction={interaction} payload={payload} />
      {payload?.tool_description ? (
        <p className="small muted tool-description" data-testid="tool-description">
          <span className="section-label">
            What {interaction.request.source.tool_name ?? "the tool"} does:{" "}
          </span>
          {payload.tool_description}
        </p>
      ) : null}
      {payload?.model_explanation ? (
        <blockquote className="model-claim">
          <p className="section-label">The model's explanation (its claim, not verified)</p>
          <p>{payload.model_explanation}</p>
        </blockquote>
      ) : null}
      <ApprovalChanges interaction={interaction} validated_input={payload?.validated_input} nameOf={nameOf} />
      {deniedWith ? (
        <p className="small" data-testid="denial-reason">
          Reason given: {deniedWith}
        </p>
      ) : null}
      {pending && denying ? (
        <form className="deny-form" onSubmit={confirmDeny}>
          <label htmlFor={reasonId} className="field-label">
            Why not? The agent sees this (optional)
          </label>
          <div className="row">
            <input
              id={reasonId}
              ref={reasonRef}
              value={reason}
              maxLength={2_000}
              placeholder="e.g. use notes/ instead"
              onChange={(event) => setReason(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === "Escape") {
                  event.preventDefault();
                  setDenying(false);
                }
              }}
              disabled={disabled}
              data-testid="deny-reason"
            />
            <button
              type="submit"
              className="button danger icon-text"
              disabled={disabled}
              data-action="confirm-deny"
            >
              <X size={16} aria-hidden />
              <span>Deny</span>
            </button>
            <button type="button" className="button ghost" onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </form>
      ) : null}
      {pending && editing && editFields ? (
        <ApprovalEditForm
          fields={editFields}
          disabled={disabled}
          onApprove={(edited_input) => void submit(buildApprovalResponse("approved", { edited_input }))}
          onCancel={closeEdit}
        />
      ) : null}
      {pending ? (
        <div className="card-actions">
          <button
            type="button"
            className="button primary icon-text"
            disabled={disabled}
            data-action="approve"
            aria-keyshortcuts="a"
            onClick={() => void submit(buildApprovalResponse("approved"))}
          >
            <Check size={16} aria-hidden />
            <span>Approve</span>
          </button>
          {interaction.request.source.tool_name && isCommand ? (
            <label className="small">
              Allow commands starting with{" "}
              <input
                type="text"
                data-field="command-prefix"
                value={commandPrefix}
                disabled={disabled}
                onChange={(event) => setCommandPrefix(event.target.value)}
              />
            </label>
          ) : null}
          {interaction.request.source.tool_name ? (
            <button
              type="button"
              className="button icon-text"
              disabled={disabled}
              data-action="approve-session"
              title={`Later ${interaction.request.source.tool_name} calls in this session run without asking`}
              onClick={() =>
                void submit(
                  buildApprovalResponse("approved", {
                    allow_tool_for_session: true,
                    ...(isCommand ? { command_prefix: commandPrefix } : {}),
                  }),
                )
              }
            >
              <CheckCheck size={16} aria-hidden />
              <span>Allow {interaction.request.source.tool_name} for this session</span>
            </button>
          ) : null}
          {editFields && editFields.length > 0 && !editing ? (
            <button
              ref={editButtonRef}
              type="button"
              className="button icon-text"
              disabled={disabled}
              data-action="edit"
              aria-keyshortcuts="e"
              onClick={() => {
                setDenying(false);
                setEditing(true);
              }}
            >
              <Pencil size={15} aria-hidden />
              <span>Edit…</span>
            </button>
          ) : null}
          {denying ? null : (
            <button
              type="button"
              className="button danger-outline icon-text"
              disabled={disabled}
              data-action="deny"
              aria-keyshortcuts="d"
              onClick={openDeny}
            >
              <X size={16} aria-hidden />
              <span>Deny…</span>
            </button>
          )}
          <span className="card-note" role="status">
            {busy ? "Sending…" : sent ? "Answer sent — waiting for the agent" : ""}
          </span>
        </div>
      ) : outcome ? (
        <p className="interaction-outcome" data-testid="interaction-outcome">
          {outcome}
        </p>
      ) : null}
      {errorLine}
    </div>
  );
}
