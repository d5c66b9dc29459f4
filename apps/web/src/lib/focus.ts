/**
 * Where focus goes when the element holding it is about to disappear (an answered card's buttons,
 * Stop), so it never falls back to `<body>`: the next pending request, else the composer, else the
 * main landmark. Waits a frame, for the card's own re-render to settle first.
 */
export function focusAfterAnswer(answered: Element | null): void {
  window.requestAnimationFrame(() => handFocusOn(answered));
}

/** `focusAfterAnswer` at once: for a caller that runs after the re-render (a layout effect). */
export function handFocusOn(answered: Element | null): void {
  const next = [
    ...document.querySelectorAll<HTMLElement>('[data-testid="interaction-card"][data-status="pending"]'),
  ].find(
    (card) => card !== answered && !card.contains(document.activeElement) && card.dataset.sent !== "true",
  );
  if (next) {
    next.focus();
    return;
  }
  focusComposerOrMain();
}

export function focusComposerOrMain(): void {
  const composer = document.querySelector<HTMLTextAreaElement>("textarea[data-composer]");
  if (composer && !composer.disabled) {
    composer.focus();
    return;
  }
  document.getElementById("main")?.focus();
}

/** Scrolls to and focuses the oldest pending request on the page; false when there is none. */
export function focusFirstPendingRequest(): boolean {
  const card = document.querySelector<HTMLElement>('[data-testid="interaction-card"][data-status="pending"]');
  if (!card) return false;
  card.scrollIntoView({ block: "center" });
  card.focus({ preventScroll: true });
  return true;
}

/** True while the person types in a field: single-key shortcuts must not fire then. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit"].includes(type);
  }
  return false;
}
