import type { BusFaults } from "@parley/db";

/**
 * FAULT HOOK, for the fault suite only (`PARLEY_FAULT_DROP_NOTICES`): which bus notices this process
 * deliberately loses, to show that a lost notice costs latency, never an answer.
 * - `received`: every notice arriving from another process is dropped (this process never hears of
 *   their commits through the bus);
 * - `sent`: every notice this process sends is dropped before it leaves (no other process hears of
 *   this one's commits; its own listeners still do).
 */
export const NOTICE_FAULT_MODES = ["received", "sent"] as const;

export type NoticeFaultMode = (typeof NOTICE_FAULT_MODES)[number];

/** The bus faults for `mode`; `onDropped` is told of each notice lost (the process logs it). */
export function noticeFaults(mode: NoticeFaultMode, onDropped: (notice: unknown) => void): BusFaults {
  const direction = mode === "received" ? "receive" : "send";
  return {
    dropNotice(notice, at) {
      if (at !== direction) return false;
      onDropped(notice);
      return true;
    },
  };
}
