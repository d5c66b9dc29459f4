/**
 * What travels in a notice. Durable events travel as ids only (kept far below NOTIFY's 8,000-byte
 * limit): which rows to read. A session notice names the published range `first..last` of one
 * session's event ids (so a listener that never saw the session starts at `first`); an interaction
 * notice names the highest admin-feed id. A live notice (ADR 0007) is the one that carries a payload:
 * a live mutation (DESIGN §10.6), which has no row to read. Its header names the session, the durable
 * `event_id` it follows and the sending bus (`origin`, so a bus drops its own coming back); `body` is
 * the mutation's JSON, parsed only by a process that has a listener for the session.
 */
export type NotifyPayload =
  | { kind: "session"; session_id: string; first: number; last: number }
  | { kind: "interaction"; last: number }
  | { kind: "live"; session_id: string; event_id: number; origin: string; body: string };

/** Separates a live notice's header from its body (JSON never holds a raw newline). */
const LIVE_SEPARATOR = "\n";

export function encodeNotifyPayload(payload: NotifyPayload): string {
  switch (payload.kind) {
    case "session":
      return JSON.stringify({ s: payload.session_id, f: payload.first, l: payload.last });
    case "interaction":
      return JSON.stringify({ i: payload.last });
    case "live":
      return `${JSON.stringify({ v: payload.session_id, e: payload.event_id, o: payload.origin })}${LIVE_SEPARATOR}${payload.body}`;
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
}

export function decodeNotifyPayload(text: string | undefined): NotifyPayload | null {
  if (!text) return null;
  const separator = text.indexOf(LIVE_SEPARATOR);
  if (separator >= 0) {
    // Only the header is parsed here: most processes have no listener for most sessions.
    const header = parseObject(text.slice(0, separator));
    const body = text.slice(separator + 1);
    if (
      header &&
      typeof header.v === "string" &&
      Number.isInteger(header.e) &&
      (header.e as number) >= 0 &&
      typeof header.o === "string" &&
      body.length > 0
    ) {
      return { kind: "live", session_id: header.v, event_id: header.e as number, origin: header.o, body };
    }
    return null;
  }
  const record = parseObject(text);
  if (!record) return null;
  if (typeof record.s === "string" && Number.isInteger(record.f) && Number.isInteger(record.l)) {
    return { kind: "session", session_id: record.s, first: record.f as number, last: record.l as number };
  }
  if (Number.isInteger(record.i)) return { kind: "interaction", last: record.i as number };
  return null;
}
