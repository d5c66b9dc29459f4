"use client";

import { SendHorizontal } from "lucide-react";
import { type FormEvent, type KeyboardEvent, type Ref, useId, useState } from "react";

/**
 * The message box. It never waits on the server: `onSend` takes the text at once (the session view
 * queues it and shows it), so the box is cleared and ready for the next message immediately.
 */
export function Composer({
  disabled,
  disabledReason,
  onSend,
  inputRef,
}: {
  disabled: boolean;
  disabledReason: string | null;
  onSend: (query: string) => void;
  inputRef?: Ref<HTMLTextAreaElement>;
}) {
  const [text, setText] = useState("");
  const id = useId();
  const canSend = !disabled && text.trim().length > 0;

  function send() {
    if (!canSend) return;
    onSend(text);
    setText("");
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  }

  return (
    <form className="composer" onSubmit={onSubmit} aria-label="Message composer">
      <label htmlFor={id} className="sr-only">
        Message the agent
      </label>
      <div className="composer-box">
        <textarea
          id={id}
          ref={inputRef}
          data-composer
          rows={1}
          value={text}
          disabled={disabled}
          placeholder={disabledReason ?? "Message the agent (Enter to send, Shift+Enter for a new line)"}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          maxLength={32_000}
        />
        <button type="submit" className="button primary icon-only" disabled={!canSend} aria-label="Send">
          <SendHorizontal size={18} aria-hidden />
        </button>
      </div>
    </form>
  );
}
