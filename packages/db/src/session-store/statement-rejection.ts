import pg from "pg";

const REJECTION = /parley_commit_rejected:([a-z_]+)(?::(-?\d+))?/;

/**
 * A new message's id or sequence taken, as the unique key its INSERT met reports it (the insert is
 * plain: an `ON CONFLICT` clause would write WAL to confirm every insert that meets nothing).
 */
const TAKEN_MESSAGE_KEYS: Readonly<Record<string, string>> = {
  messages_pkey: "message_exists",
  messages_session_id_sequence_key: "sequence",
};

/**
 * The reason (and its number, e.g. the current epoch) of a `parley_reject_commit` one of the store's
 * statements raised (the SQL function of migration `20261202170000_perf_commit_path`), or of a new
 * message's taken key; null for any other error.
 */
export function rejectionOf(error: unknown): { reason: string; detail: string | undefined } | null {
  if (error instanceof pg.DatabaseError && error.code === "23505" && error.constraint !== undefined) {
    const reason = TAKEN_MESSAGE_KEYS[error.constraint];
    if (reason !== undefined) return { reason, detail: undefined };
  }
  const match = error instanceof Error ? REJECTION.exec(error.message) : null;
  return match?.[1] === undefined ? null : { reason: match[1], detail: match[2] };
}
