/**
 * What travels in a NOTIFY (kept far below the 8,000-byte limit): only which rows to read. A session
 * notice names the published range `first..last` of one session's event ids (so a listener that
 * never saw the session starts at `first`); an interaction notice names the highest admin-feed id.
 */
export type NotifyPayload =
  | { kind: "session"; session_id: string; first: number; last: number }
  | { kind: "interaction"; last: number };

export function encodeNotifyPayload(payload: NotifyPayload): string {
  return payload.kind === "session"
    ? JSON.stringify({ s: payload.session_id, f: payload.first, l: payload.last })
    : JSON.stringify({ i: payload.last });
}

export function decodeNotifyPayload(text: string | undefined): NotifyPayload | null {
  if (!text) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.s === "string" && Number.isInteger(record.f) && Number.isInteger(record.l)) {
    return { kind: "session", session_id: record.s, first: record.f as number, last: record.l as number };
  }
  if (Number.isInteger(record.i)) return { kind: "interaction", last: record.i as number };
  return null;
}
