"use client";

import type { AssistantMessage, AssistantPart, SessionMessage } from "@parley/sdk";
import clsx from "clsx";
import { AlertOctagon, Bot, Info, User } from "lucide-react";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { formatClock } from "@/lib/format-time";
import { ExamplePrompts } from "./example-prompts";
import { Markdown } from "./markdown";
import { FilePartView, SourcePartView } from "./model-output-part";
import { EmptyState } from "./states";
import { ToolCard } from "./tool-card";
import type { RespondHandler } from "./use-respond";

export interface TimelineProps {
  messages: readonly SessionMessage[];
  olderBeforeSequence: number | null;
  onLoadOlder: (before_sequence: number) => Promise<void>;
  onRespond: RespondHandler;
  nameOf: (user_id: string) => string;
  running: boolean;
  /** Sends an example prompt (offered while the session is empty). */
  onExample?: (prompt: string) => void;
  /** Where the agent works and whether it asks first: the empty session says so truthfully. */
  setup?: { workspace_id: string | null; always_allow: boolean };
}

export function Timeline({
  messages,
  olderBeforeSequence,
  onLoadOlder,
  onRespond,
  nameOf,
  running,
  onExample,
  setup = { workspace_id: null, always_allow: false },
}: TimelineProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [loadingOlder, setLoadingOlder] = useState(false);

  // Follow new content only while the reader is at the bottom; never yank them while reading.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  });
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const onScroll = () => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    return () => element.removeEventListener("scroll", onScroll);
  }, []);

  async function loadOlder() {
    if (olderBeforeSequence === null) return;
    setLoadingOlder(true);
    try {
      await onLoadOlder(olderBeforeSequence);
    } finally {
      setLoadingOlder(false);
    }
  }

  return (
    <div className="timeline" ref={scroller} data-testid="timeline">
      <ol className="timeline-list" aria-label="Conversation">
        {olderBeforeSequence !== null ? (
          <li className="timeline-older">
            <button type="button" className="button ghost" onClick={loadOlder} disabled={loadingOlder}>
              {loadingOlder ? "Loading…" : "Load earlier messages"}
            </button>
          </li>
        ) : null}
        {messages.length === 0 ? (
          <li>
            <EmptyState title="Nothing here yet">
              <p>
                {setup.workspace_id === null
                  ? "The agent works in this session's own folder."
                  : `The agent works in the ${setup.workspace_id} workspace.`}{" "}
                {setup.always_allow
                  ? "Approvals are set to Always allow: file changes and commands run without asking."
                  : "Anything that changes a file or runs a command waits for your approval first."}
              </p>
              {onExample ? <ExamplePrompts always_allow={setup.always_allow} onPick={onExample} /> : null}
            </EmptyState>
          </li>
        ) : null}
        {messages.map((message) => (
          <li
            key={message.message_id}
            className={clsx("timeline-item", message.type)}
            data-message-type={message.type}
          >
            <MessageView message={message} onRespond={onRespond} nameOf={nameOf} />
          </li>
        ))}
        {running &&
        !messages.some((message) => message.type === "assistant" && message.status === "streaming") ? (
          <li className="timeline-item thinking" aria-hidden>
            <span className="typing">
              <span />
              <span />
              <span />
            </span>
          </li>
        ) : null}
      </ol>
    </div>
  );
}

function MessageView({
  message,
  onRespond,
  nameOf,
}: {
  message: SessionMessage;
  onRespond: TimelineProps["onRespond"];
  nameOf: TimelineProps["nameOf"];
}) {
  switch (message.type) {
    case "user":
      return (
        <article className="message user-message" aria-label="You">
          <div className="message-head">
            <User size={14} aria-hidden />
            <span>You</span>
            <time className="muted">{formatClock(message.created_at)}</time>
            {message.input_type === "steer" ? <span className="tag">added while running</span> : null}
          </div>
          <div className="bubble">{message.parts.map((part) => part.text).join("\n")}</div>
        </article>
      );
    case "assistant":
      return <AssistantView message={message} onRespond={onRespond} nameOf={nameOf} />;
    case "action":
      return (
        <div className={clsx("action-note", message.status)} role="note">
          <Info size={14} aria-hidden />
          <span>
            {message.title}
            {message.description ? <span className="muted"> — {message.description}</span> : null}
          </span>
        </div>
      );
    case "error":
      return (
        <div className="error-note" role="alert">
          <AlertOctagon size={16} aria-hidden />
          <div>
            <strong>{message.scope === "turn" ? "The turn failed" : "Session error"}</strong>
            <p className="break">{message.message}</p>
            <p className="muted small">
              {message.code}
              {message.recoverable ? " · you can try again" : ""}
            </p>
          </div>
        </div>
      );
  }
}

const statusLabel: Record<AssistantMessage["status"], string | null> = {
  streaming: null,
  completed: null,
  stopped: "Stopped",
  failed: "Did not finish",
};

function AssistantView({
  message,
  onRespond,
  nameOf,
}: {
  message: AssistantMessage;
  onRespond: TimelineProps["onRespond"];
  nameOf: TimelineProps["nameOf"];
}) {
  const label = statusLabel[message.status];
  return (
    <article
      className="message assistant-message"
      aria-label="Agent"
      aria-busy={message.status === "streaming"}
    >
      <div className="message-head">
        <Bot size={14} aria-hidden />
        <span>Agent</span>
        <time className="muted">{formatClock(message.created_at)}</time>
        {label ? (
          <span className={clsx("tag", message.status)} data-testid="message-status">
            {label}
          </span>
        ) : null}
      </div>
      <div className="assistant-parts">
        {message.parts.map((part) => (
          <PartView key={part.part_id} part={part} onRespond={onRespond} nameOf={nameOf} />
        ))}
        {message.status === "streaming" && message.parts.length === 0 ? (
          <span className="typing" aria-hidden>
            <span />
            <span />
            <span />
          </span>
        ) : null}
      </div>
    </article>
  );
}

function PartView({
  part,
  onRespond,
  nameOf,
}: {
  part: AssistantPart;
  onRespond: TimelineProps["onRespond"];
  nameOf: TimelineProps["nameOf"];
}) {
  switch (part.type) {
    case "text":
      return part.text ? (
        <div className={clsx("assistant-text", part.state === "streaming" && "streaming")}>
          <Markdown text={part.text} />
        </div>
      ) : null;
    case "reasoning":
      return part.text ? (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div className="reasoning-text">{part.text}</div>
        </details>
      ) : null;
    case "tool":
      return <ToolCard tool={part} onRespond={onRespond} nameOf={nameOf} />;
    case "step-start":
      return null;
    case "file":
      return <FilePartView part={part} />;
    case "source":
      return <SourcePartView part={part} />;
  }
}
