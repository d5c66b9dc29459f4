import { ParleyError, type Session, type SessionRecord } from "@parley/session-core";
import type { AuthedContext } from "./trpc.js";

/**
 * The session record if the caller may see it. A member asking for another member's session gets
 * the same `session_not_found` as for a session that does not exist, so existence is not revealed.
 */
export async function findVisibleSession(context: AuthedContext, session_id: string): Promise<SessionRecord> {
  return visibleRecord(context, session_id, await context.services.store.getSession(session_id));
}

/** `record` (of `session_id`, null when missing), if the caller may see it; see `findVisibleSession`. */
export function visibleRecord(
  context: AuthedContext,
  session_id: string,
  record: SessionRecord | null,
): SessionRecord {
  if (record === null) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
  assertVisibleOwner(context, session_id, record.owner_id);
  return record;
}

/** The caller may see a session owned by `owner_id` (else `session_not_found`, as `findVisibleSession`). */
export function assertVisibleOwner(context: AuthedContext, session_id: string, owner_id: string): void {
  if (context.user.role !== "admin" && owner_id !== context.user.user_id) {
    throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
  }
}

/**
 * The Session facade of a session the caller may see; `known`: its record as the caller just read
 * it (checked here), else it is read.
 */
export async function openVisibleSession(
  context: AuthedContext,
  session_id: string,
  known?: SessionRecord | null,
): Promise<Session> {
  const record =
    known === undefined
      ? await findVisibleSession(context, session_id)
      : visibleRecord(context, session_id, known);
  const session = await context.services.runtime.openSession(session_id, record);
  if (session === null) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
  return session;
}
