"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { Archive } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toDisplayError } from "@/lib/parley-api";

/**
 * "Close session", confirmed in a dialog: closing cannot be undone, stops the agent and cancels the
 * requests that wait for an answer, so one stray click must not do it.
 */
export function CloseSessionButton({
  closed,
  disabled,
  pendingCount,
  onClose,
}: {
  /** The session is closed (by this dialog or elsewhere): no trigger, and an open dialog goes away. */
  closed: boolean;
  disabled: boolean;
  pendingCount: number;
  onClose: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [closing, setClosing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Set once the session is closed: the dialog then hands focus to the main area, not the trigger. */
  const done = useRef(false);

  // The `closed` mutation may arrive before `close` answers: either one ends the dialog.
  useEffect(() => {
    if (!closed) return;
    done.current = true;
    setOpen(false);
  }, [closed]);

  async function confirm() {
    setClosing(true);
    setError(null);
    try {
      await onClose();
      done.current = true;
      setOpen(false);
    } catch (caught) {
      setError(toDisplayError(caught).message);
    } finally {
      setClosing(false);
    }
  }

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (closing) return;
        setOpen(next);
        if (next) setError(null);
      }}
    >
      {closed ? null : (
        <Dialog.Trigger asChild>
          <button
            type="button"
            className="button ghost icon-text close-session-button"
            aria-label="Close session"
            disabled={disabled}
          >
            <Archive size={15} aria-hidden />
            <span>Close</span>
          </button>
        </Dialog.Trigger>
      )}
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog"
          data-testid="close-session-dialog"
          onCloseAutoFocus={(event) => {
            // After closing, the trigger goes away and the composer is disabled: focus goes to the main area.
            if (!done.current) return;
            event.preventDefault();
            document.getElementById("main")?.focus();
          }}
        >
          <Dialog.Title className="dialog-title">Close this session?</Dialog.Title>
          <Dialog.Description className="dialog-description">
            The agent stops
            {pendingCount > 0
              ? `, the ${pendingCount === 1 ? "request" : `${pendingCount} requests`} waiting for an answer ${pendingCount === 1 ? "is" : "are"} cancelled,`
              : ""}{" "}
            and no one can send new messages. The conversation stays readable. This cannot be undone.
          </Dialog.Description>
          {error ? (
            <p className="field-error" role="alert">
              Closing failed: {error}
            </p>
          ) : null}
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button" className="button" disabled={closing}>
                Keep open
              </button>
            </Dialog.Close>
            <button type="button" className="button danger" onClick={confirm} disabled={closing}>
              {closing ? "Closing…" : "Close session"}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
