"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { Keyboard } from "lucide-react";
import { useEffect, useState } from "react";
import { focusComposerOrMain, focusFirstPendingRequest, isTypingTarget } from "@/lib/focus";

export const SHORTCUTS: readonly { keys: string; does: string }[] = [
  { keys: "g", does: "Go to the request waiting for you (the oldest)" },
  { keys: "a", does: "Approve the focused request (or the oldest waiting approval)" },
  { keys: "d", does: "Deny it: opens the reason field; Enter denies, Escape goes back" },
  { keys: "e", does: "Edit it before approving: opens its fields; Escape goes back" },
  { keys: "c", does: "Put the cursor in the message box" },
  { keys: "?", does: "Show this list" },
];

/** The approval a single-key shortcut acts on: the focused one, else the oldest pending one. */
function targetApproval(): HTMLElement | null {
  const focused = document.activeElement?.closest<HTMLElement>(
    '[data-testid="interaction-card"][data-status="pending"][data-interaction-type="approval"]',
  );
  return (
    focused ??
    document.querySelector<HTMLElement>(
      '[data-testid="interaction-card"][data-status="pending"][data-interaction-type="approval"]',
    )
  );
}

function clickAction(card: HTMLElement | null, action: string): boolean {
  const button = card?.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`);
  if (!button || button.disabled) return false;
  button.click();
  return true;
}

/** Single-key shortcuts (never while typing in a field) and the `?` sheet that lists them. */
export function KeyboardShortcuts() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTypingTarget(event.target)) return;
      if (document.querySelector('[role="dialog"]') && event.key !== "?") return;
      let handled = false;
      switch (event.key) {
        case "?":
          setOpen((value) => !value);
          handled = true;
          break;
        case "g":
          handled = focusFirstPendingRequest();
          break;
        case "a":
          handled = clickAction(targetApproval(), "approve");
          break;
        case "d": {
          const card = targetApproval();
          handled = clickAction(card, "deny");
          if (handled) card?.scrollIntoView({ block: "center" });
          break;
        }
        case "e": {
          const card = targetApproval();
          handled = clickAction(card, "edit");
          if (handled) card?.scrollIntoView({ block: "center" });
          break;
        }
        case "c":
          // After this key's default is cancelled, or the "c" itself would land in the box.
          window.setTimeout(focusComposerOrMain, 0);
          handled = true;
          break;
      }
      if (handled) event.preventDefault();
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button
          type="button"
          className="button ghost icon-only"
          aria-label="Keyboard shortcuts"
          aria-keyshortcuts="?"
          title="Keyboard shortcuts (?)"
        >
          <Keyboard size={16} aria-hidden />
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog" data-testid="shortcuts-sheet">
          <Dialog.Title className="dialog-title">Keyboard shortcuts</Dialog.Title>
          <Dialog.Description className="dialog-description">
            Single keys work anywhere except while you type in a field. Tab moves between controls; the first
            Tab on a page offers "Skip to content".
          </Dialog.Description>
          <dl className="shortcut-list">
            {SHORTCUTS.map((shortcut) => (
              <div key={shortcut.keys} className="shortcut-row">
                <dt>
                  <kbd>{shortcut.keys}</kbd>
                </dt>
                <dd>{shortcut.does}</dd>
              </div>
            ))}
          </dl>
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button" className="button">
                Close
              </button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
