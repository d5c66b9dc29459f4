"use client";

import { SendHorizontal } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useId, useState } from "react";
import { toDisplayError } from "@/lib/parley-api";

export function Composer({
  disabled,
  disabledReason,
  onSend,
}: {
  disabled: boolean;
  disabledReason: string | null;
  onSend: (query: string) => Promise<void>;
}) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const canSend = !disabled && !sending && text.trim().length > 0;

  async function send() {
    if (!canSend) return;
    setSending(true);
    setError(null);
    try {
      await onSend(text);
      setText("");
    } catch (failure) {
      setError(toDisplayError(failure).message);
    } finally {
      setSending(false);
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  return (
    <form className="composer" onSubmit={onSubmit}>
      <label htmlFor={id} className="sr-only">
        Message the agent
      </label>
      <div className="composer-box">
        <textarea
          id={id}
          rows={1}
          value={text}
          disabled={disabled}
          placeholder={disabledReason ?? "Message the agent (Enter to send)"}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          maxLength={32_000}
        />
        <button type="submit" className="button primary icon-only" disabled={!canSend} aria-label="Send">
          <SendHorizontal size={18} aria-hidden />
        </button>
      </div>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
