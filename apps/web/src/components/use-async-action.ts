"use client";

import { useState } from "react";
import { toDisplayError } from "@/lib/parley-api";

/**
 * An action a control starts (a session setting's change, an example prompt): `busy` while its call
 * is out, `error` the message of its failure until the next attempt.
 */
export function useAsyncAction<T>(action: (value: T) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function apply(value: T) {
    setBusy(true);
    setError(null);
    try {
      await action(value);
    } catch (failure) {
      setError(toDisplayError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, apply };
}
