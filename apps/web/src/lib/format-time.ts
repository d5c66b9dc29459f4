const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "just now", "5 min ago", "2 hr ago", … for epoch-millisecond timestamps. */
export function formatRelativeTime(timestamp: number, now: number = Date.now()): string {
  const elapsed = now - timestamp;
  if (elapsed < 45_000) return "just now";
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "short" });
  for (const [unit, size] of units) {
    if (elapsed >= size) return format.format(-Math.floor(elapsed / size), unit);
  }
  return "just now";
}

export function formatClock(timestamp: number): string {
  return new Date(timestamp).toLocaleTimeString("en", { hour: "2-digit", minute: "2-digit" });
}
