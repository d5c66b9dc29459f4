"use client";

import { useState } from "react";
import { toDisplayError } from "@/lib/parley-api";

/**
 * A session setting's change (approval mode, model) as a control runs it: `busy` while the call is
 * out, `error` the message of its failure until the next attempt.
 */
export function useSettingChange<T>(onChange: (value: T) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function apply(value: T) {
    setBusy(true);
    setError(null);
    try {
      await onChange(value);
    } catch (failure) {
      setError(toDisplayError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, apply };
}
