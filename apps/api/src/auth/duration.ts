const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * A duration written as a whole number and a unit — `90s`, `15m`, `12h`, `30d`, `2w` — in
 * milliseconds; null when it is not one (or not positive).
 */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  if (match === null) return null;
  const amount = Number(match[1]);
  const unit = match[2] as keyof typeof UNIT_MS;
  return amount > 0 ? amount * UNIT_MS[unit] : null;
}
