"use client";

type Decision = "approved" | "denied";

const DECISIONS: { decision: Decision; label: string; className: string }[] = [
  { decision: "approved", label: "Approve selected", className: "button primary" },
  { decision: "denied", label: "Deny selected", className: "button danger-outline" },
];

/** Approve or deny every selected approval at once; the outcome of the last batch stays shown. */
export function AdminInboxBulkBar({
  selectedCount,
  busy,
  message,
  onAnswer,
  onClear,
}: {
  selectedCount: number;
  busy: boolean;
  message: string | null;
  onAnswer: (decision: Decision) => void;
  onClear: () => void;
}) {
  if (selectedCount === 0 && !message) return null;
  return (
    <section className="bulk-bar" aria-label="Bulk actions">
      {selectedCount > 0 ? (
        <>
          <span>{selectedCount} selected</span>
          {DECISIONS.map(({ decision, label, className }) => (
            <button
              key={decision}
              type="button"
              className={className}
              disabled={busy}
              onClick={() => onAnswer(decision)}
            >
              {label}
            </button>
          ))}
          <button type="button" className="button ghost" onClick={onClear}>
            Clear selection
          </button>
        </>
      ) : null}
      {message ? (
        <span role="status" className="muted">
          {message}
        </span>
      ) : null}
    </section>
  );
}

/** What a batch did, for the bar: how many were answered, and how many were not. */
export function describeBatch(decision: Decision, answered: number, failed: number): string {
  const verb = decision === "approved" ? "Approved" : "Denied";
  return failed === 0
    ? `${verb} ${answered}.`
    : `${verb} ${answered}; ${failed} could not be answered (answered elsewhere?).`;
}
