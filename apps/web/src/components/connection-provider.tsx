"use client";

import { WifiOff } from "lucide-react";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";

/** Whether the API answers, from a light `GET /healthz` poll (and at once after any failed call). */
interface ConnectionValue {
  readonly online: boolean;
  /** Checks now, e.g. after a call failed with a network error. */
  check(): void;
}

const ConnectionContext = createContext<ConnectionValue>({ online: true, check: () => undefined });

export function useConnection(): ConnectionValue {
  return useContext(ConnectionContext);
}

const ONLINE_INTERVAL_MS = 5_000;
const OFFLINE_INTERVAL_MS = 1_500;

export function ConnectionProvider({ apiUrl, children }: { apiUrl: string; children: ReactNode }) {
  const [online, setOnline] = useState(true);
  const [nudge, setNudge] = useState(0);
  const check = useCallback(() => setNudge((value) => value + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: nudge re-runs the probe at once
  useEffect(() => {
    let disposed = false;
    let timer: number | undefined;
    const probe = async () => {
      let healthy = false;
      try {
        const controller = new AbortController();
        const abort = window.setTimeout(() => controller.abort(), 4_000);
        const response = await fetch(`${apiUrl.replace(/\/$/, "")}/healthz`, {
          cache: "no-store",
          signal: controller.signal,
        });
        window.clearTimeout(abort);
        healthy = response.ok;
      } catch {
        healthy = false;
      }
      if (disposed) return;
      setOnline(healthy);
      timer = window.setTimeout(probe, healthy ? ONLINE_INTERVAL_MS : OFFLINE_INTERVAL_MS);
    };
    void probe();
    const onBrowserChange = () => {
      window.clearTimeout(timer);
      void probe();
    };
    window.addEventListener("online", onBrowserChange);
    window.addEventListener("offline", onBrowserChange);
    return () => {
      disposed = true;
      window.clearTimeout(timer);
      window.removeEventListener("online", onBrowserChange);
      window.removeEventListener("offline", onBrowserChange);
    };
  }, [apiUrl, nudge]);

  const value = useMemo(() => ({ online, check }), [online, check]);
  return <ConnectionContext.Provider value={value}>{children}</ConnectionContext.Provider>;
}

/** The global banner; actions that need the API are disabled while it shows. */
export function ConnectionBanner() {
  const { online } = useConnection();
  if (online) return null;
  return (
    <div className="banner connection-banner" role="status" data-testid="connection-banner">
      <WifiOff size={15} aria-hidden />
      <span>Reconnecting… The server can't be reached; actions are paused until it is back.</span>
    </div>
  );
}
