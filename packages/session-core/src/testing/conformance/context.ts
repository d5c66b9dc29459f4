import { expect } from "vitest";
import { type ParleyCode, ParleyError, StoreConflictError } from "../../errors.js";
import type { CommitResult, SessionCommit, SessionStore } from "../../ports/session-store.js";
import type { TurnLeaseManager } from "../../ports/turn-lease.js";
import type { Interaction } from "../../schema/interaction.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { SessionRecord } from "../../schema/session.js";
import {
  buildAssistantMessage,
  buildSessionRecord,
  buildToolPart,
  messageCommitOf,
  T0,
} from "../fixtures.js";

/** What every conformance case works with; valid only inside a test. */
export interface ConformanceContext {
  readonly store: SessionStore;
  setLeaseEpoch(session_id: string, epoch: number): Promise<void>;
  /** The subject's lease manager: a lease it holds is a live holder's (see `SessionStoreConformanceSubject`). */
  readonly leases: TurnLeaseManager;
}

export async function createSession(
  context: ConformanceContext,
  session_id: string,
  overrides: Partial<SessionRecord> = {},
): Promise<SessionRecord> {
  const record = buildSessionRecord({ session_id, ...overrides });
  await context.store.createSession(record);
  return record;
}

let promptCounter = 0;

/**
 * Queues a prompt: it starts Turn `turn_id` (a row, `queued`) when the session has no active Turn,
 * and joins the active one otherwise.
 */
export function enqueuePrompt(context: ConformanceContext, session_id: string, turn_id: string) {
  promptCounter += 1;
  return context.store.enqueueCommand({
    session_id,
    command_id: `command:turn-${promptCounter}`,
    command: { kind: "prompt", input: { query: `query ${promptCounter}` } },
    created_at: T0 + promptCounter,
    new_turn_id: turn_id,
  });
}

/** A commit that moves Turn `turn_id` on (without a message). */
export function progress(
  context: ConformanceContext,
  session_id: string,
  turn_id: string,
  state: "running" | "waiting",
  epoch?: number,
) {
  return context.store.commit({
    session_id,
    ...(epoch === undefined ? {} : { epoch }),
    turn: { turn_id, state },
  });
}

/** Commits `message` as its own revision, with its interaction rows and its `message` mutation. */
export function commitMessage(
  context: ConformanceContext,
  message: SessionMessage,
  extra: Partial<SessionCommit> = {},
): Promise<CommitResult> {
  return context.store.commit(messageCommitOf(message, extra));
}

/** An assistant message whose tool parts (part sequence 1, 2 …) embed the given interactions. */
export function assistantWithTools(input: {
  session_id: string;
  message_id: string;
  sequence: number;
  tools: { tool_call_id: string; tool_name?: string; interactions: Interaction[]; part_sequence?: number }[];
}): AssistantMessage {
  return buildAssistantMessage({
    session_id: input.session_id,
    message_id: input.message_id,
    sequence: input.sequence,
    parts: input.tools.map((tool, index) =>
      buildToolPart({
        sequence: tool.part_sequence ?? index + 1,
        tool_call_id: tool.tool_call_id,
        tool_name: tool.tool_name ?? "delete_file",
        state: tool.interactions.some((interaction) => interaction.status === "pending")
          ? "waiting-user"
          : "running",
        interactions: tool.interactions,
      }),
    ),
  });
}

/** Asserts that `promise` rejects with a `StoreConflictError` of `kind`. */
export async function expectConflict(
  promise: Promise<unknown>,
  kind: StoreConflictError["kind"],
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StoreConflictError);
  expect((error as StoreConflictError).kind).toBe(kind);
}

/**
 * The `ParleyError` code `promise` rejects with; anything else is described instead (a resolved
 * promise, another error), so that an assertion on it names what happened.
 */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "(resolved)",
    (reason: unknown) =>
      reason instanceof ParleyError ? reason.code : `(not a ParleyError: ${String(reason)})`,
  );
}

/** Asserts that `promise` rejects with a `ParleyError` of exactly `code`. */
export async function expectParleyCode(promise: Promise<unknown>, code: ParleyCode): Promise<void> {
  expect(await rejectionCode(promise)).toBe(code);
}

/** Everything a session holds, to assert that a failed commit changed nothing. */
export async function snapshotSession(context: ConformanceContext, session_id: string) {
  const { store } = context;
  return {
    session: await store.getSession(session_id),
    messages: await store.listMessages(session_id, { limit: 1000 }),
    events: await store.listEvents(session_id, 0, 1000),
    pending: await store.listPendingInteractions(session_id),
    interactions: await store.queryInteractions({ session_id, limit: 1000 }),
    interaction_events: await store.listInteractionEvents(0, 1000),
  };
}
