"use client";

import { Bell, BellOff } from "lucide-react";
import { useEffect, useRef, useState } from "react";

const NOTIFY_KEY = "parley.notify";

/**
 * The tab title carries the number of requests waiting ("(2) Parley"), so a person sees it from
 * another tab. `base` is the page's own title.
 */
export function useAttentionTitle(waiting: number, base: string): void {
  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) ${base}` : base;
  }, [waiting, base]);
}

/**
 * Opt-in browser notifications: off until the person turns them on (and the browser allows them);
 * then a rise in the waiting count while the tab is hidden shows one notification.
 */
export function NotificationToggle({ waiting }: { waiting: number }) {
  const [enabled, setEnabled] = useState(false);
  const [supported, setSupported] = useState(false);
  const previous = useRef(waiting);

  useEffect(() => {
    const available = typeof window !== "undefined" && "Notification" in window;
    setSupported(available);
    setEnabled(
      available && window.localStorage.getItem(NOTIFY_KEY) === "1" && Notification.permission === "granted",
    );
  }, []);

  useEffect(() => {
    const before = previous.current;
    previous.current = waiting;
    if (!enabled || waiting <= before || document.visibilityState === "visible") return;
    const notification = new Notification("Parley: a request needs you", {
      body: `${waiting} waiting for an answer`,
      tag: "parley-waiting",
    });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  }, [waiting, enabled]);

  if (!supported) return null;
  async function toggle() {
    if (enabled) {
      window.localStorage.removeItem(NOTIFY_KEY);
      setEnabled(false);
      return;
    }
    const permission = await Notification.requestPermission();
    if (permission === "granted") {
      window.localStorage.setItem(NOTIFY_KEY, "1");
      setEnabled(true);
    }
  }
  return (
    <button
      type="button"
      className="button ghost icon-only"
      onClick={() => void toggle()}
      aria-pressed={enabled}
      aria-label={enabled ? "Notifications on (turn off)" : "Notify me when a request waits"}
      title={enabled ? "Notifications on" : "Notify me when a request waits"}
      data-testid="notify-toggle"
    >
      {enabled ? <Bell size={16} aria-hidden /> : <BellOff size={16} aria-hidden />}
    </button>
  );
}
