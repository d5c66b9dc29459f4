"use client";

import type { Interaction, InteractionResponse, RespondInput } from "@parley/sdk";
import { useLayoutEffect, useRef, useState } from "react";
import { focusAfterAnswer, handFocusOn } from "@/lib/focus";
import type { DisplayError } from "@/lib/parley-api";

/** Sends one answer; resolves with the error to show, or null when the server accepted it. */
export type RespondHandler = (input: RespondInput) => Promise<DisplayError | null>;

/** What an interaction card's body (approval or question form) is given. */
export interface InteractionBodyProps {
  interaction: Interaction;
  onRespond: RespondHandler;
  /** How a terminal Interaction ended; shown where the progress note was, so nothing moves. */
  outcome: string | null;
  /** False while an answered card is folded to its one line: show only an error, if any. */
  expanded: boolean;
}

/**
 * Submission state of one card. `sent` means the server accepted the answer; the card still shows
 * the Interaction as pending until the server publishes the new status.
 */
export function useRespond(interaction: Interaction, onRespond: RespondHandler) {
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<DisplayError | null>(null);
  const pending = interaction.status === "pending";
  // The card answered from while it held focus, until focus has been handed on from it.
  const handOffFrom = useRef<Element | null>(null);

  // The server's new status can arrive before the reply to our answer. A folded card drops the
  // field that held focus (a deny reason), and focus must not fall to <body> meanwhile.
  useLayoutEffect(() => {
    const card = handOffFrom.current;
    if (pending || !card || document.activeElement !== document.body) return;
    handOffFrom.current = null;
    handFocusOn(card);
  }, [pending]);

  async function submit(response: InteractionResponse) {
    if (!pending || busy) return;
    setBusy(true);
    setError(null);
    const card = document.querySelector(`[data-interaction-id="${CSS.escape(interaction.interaction_id)}"]`);
    handOffFrom.current = card?.contains(document.activeElement) ? card : null;
    const failure = await onRespond({ interaction_id: interaction.interaction_id, response });
    setBusy(false);
    if (failure) {
      handOffFrom.current = null;
      setError(failure);
      return;
    }
    setSent(true);
    // The buttons that held focus are disabled now: hand focus on instead of dropping it to <body>.
    if (card?.contains(document.activeElement) || document.activeElement === document.body) {
      focusAfterAnswer(card);
    }
    handOffFrom.current = null;
  }

  return {
    submit,
    busy,
    sent: sent && pending,
    error,
    locked: !pending || busy || sent,
  };
}

export function errorText(error: DisplayError): string {
  switch (error.code) {
    case "interaction_not_pending":
      return `Someone else answered first. ${error.message}`;
    case "session_closed":
      return "The session was closed, so this can no longer be answered.";
    default:
      return error.message;
  }
}
