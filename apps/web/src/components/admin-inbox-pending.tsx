"use client";

import type { RespondInput } from "@parley/sdk";
import { useState } from "react";
import { MAX_LISTED_PENDING } from "@/lib/admin-inbox-lists";
import { INBOX_PAGE_SIZE } from "@/lib/admin-inbox-state";
import { buildApprovalResponse } from "@/lib/interaction-view";
import type { AdminInboxItem, DisplayError } from "@/lib/parley-api";
import { AdminInboxBulkBar, describeBatch } from "./admin-inbox-bulk-bar";
import { AdminInboxRowContext } from "./admin-inbox-row";
import { InteractionCard } from "./interaction-card";
import { EmptyState } from "./states";

/**
 * The inbox's pending list: the filtered rows, a page at a time, each an answerable card; approvals
 * can be selected and answered together.
 */
export function AdminInboxPending({
  rows,
  pendingTotal,
  truncated,
  now,
  nameOf,
  respondFor,
}: {
  /** The pending rows that pass the filters, oldest first. */
  rows: readonly AdminInboxItem[];
  /** Every pending row listed, filtered or not. */
  pendingTotal: number;
  truncated: boolean;
  now: number;
  nameOf: (user_id: string) => string;
  respondFor: (session_id: string) => (input: RespondInput) => Promise<DisplayError | null>;
}) {
  const [shown, setShown] = useState(INBOX_PAGE_SIZE);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [bulk, setBulk] = useState<{ busy: boolean; message: string | null }>({ busy: false, message: null });
  const visibleRows = rows.slice(0, shown);
  const selectedRows = rows.filter(
    (item) =>
      selected.has(item.interaction.interaction_id) && item.interaction.interaction_type === "approval",
  );

  async function answerSelected(decision: "approved" | "denied") {
    setBulk({ busy: true, message: null });
    const results = await Promise.all(
      selectedRows.map((item) =>
        respondFor(item.session_id)({
          interaction_id: item.interaction.interaction_id,
          response: buildApprovalResponse(decision),
        }),
      ),
    );
    const failed = results.filter((result) => result !== null).length;
    setSelected(new Set());
    setBulk({ busy: false, message: describeBatch(decision, results.length - failed, failed) });
  }

  function select(id: string, value: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      if (value) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  return (
    <section aria-labelledby="pending-heading" className="inbox-section">
      <h2 id="pending-heading">
        Pending <span className="count">{rows.length}</span>
        {rows.length !== pendingTotal ? <span className="muted small"> of {pendingTotal}</span> : null}
      </h2>
      {truncated ? (
        <p className="notice" role="note" data-testid="inbox-truncated">
          More than {MAX_LISTED_PENDING} requests are pending; the oldest {pendingTotal} are listed. Answer
          some or narrow the filters to see the rest.
        </p>
      ) : null}
      <AdminInboxBulkBar
        selectedCount={selectedRows.length}
        busy={bulk.busy}
        message={bulk.message}
        onAnswer={(decision) => void answerSelected(decision)}
        onClear={() => setSelected(new Set())}
      />
      {rows.length === 0 ? (
        <EmptyState title={pendingTotal === 0 ? "Nothing is waiting" : "Nothing matches these filters"}>
          {pendingTotal === 0 ? "New approvals and questions appear here as soon as an agent asks." : null}
        </EmptyState>
      ) : (
        <>
          <ul className="inbox-list">
            {visibleRows.map((item) => {
              const id = item.interaction.interaction_id;
              return (
                <li key={id} data-testid="inbox-row">
                  <InteractionCard
                    interaction={item.interaction}
                    onRespond={respondFor(item.session_id)}
                    nameOf={nameOf}
                    context={
                      <AdminInboxRowContext
                        item={item}
                        now={now}
                        selected={selected.has(id)}
                        onSelect={(value) => select(id, value)}
                      />
                    }
                  />
                </li>
              );
            })}
          </ul>
          <p className="paging muted small">
            Showing {visibleRows.length} of {rows.length}
            {rows.length > visibleRows.length ? (
              <button
                type="button"
                className="button ghost"
                onClick={() => setShown((value) => value + INBOX_PAGE_SIZE)}
              >
                Show {Math.min(INBOX_PAGE_SIZE, rows.length - visibleRows.length)} more
              </button>
            ) : null}
          </p>
        </>
      )}
    </section>
  );
}
