import { ParleyError } from "../../errors.js";
import type { InteractionRecord, InteractionWithMessage } from "../../ports/session-store.js";
import { type InteractionResult, type RespondInput, respondInputSchema } from "../../schema/interaction.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { SessionRecord } from "../../schema/session.js";
import type { SessionCommand } from "../../schema/session-command.js";
import type { ToolAllowance } from "../../schema/tool-allowance.js";
import { allowanceOfAnswer, grantAllowance } from "../interactions/approval-allowance.js";
import { assertEditFitsTool } from "../interactions/approval-edit.js";
import { assertRespondable } from "../interactions/respond-validation.js";
import { AnswerLock } from "../session/answer-lock.js";
import type { ClaimLease } from "../session/claim-lease.js";
import type { Actor, RespondPrefetch } from "../session/session-facade.js";
import type { SessionHost } from "../session/session-host.js";
import type { SessionHosts } from "../session/session-hosts.js";
import { type Checkpointed, TurnFencedError } from "../session/session-writer.js";
import { markInteractionResumed, respondToInteraction } from "../transitions/interaction-transitions.js";
import { heldAnswer } from "./held-answer.js";

/**
 * `session.respond()`'s input, validated before anything else happens
 * (docs/behaviour.md#answering-an-interaction-respond).
 */
export function parseRespondInput(raw: unknown): RespondInput {
  const parsed = respondInputSchema.safeParse(raw);
  if (!parsed.success) {
    const paths = parsed.error.issues.map((issue) => issue.path.join("."));
    if (paths.includes("response.outcome")) {
      throw new ParleyError(
        "interaction_invalid_response",
        "Session Interaction response requires a valid outcome",
      );
    }
    if (paths.includes("response.payload")) {
      throw new ParleyError(
        "interaction_invalid_response",
        "Session Interaction response requires a payload",
      );
    }
    throw new ParleyError(
      "invalid_input",
      `Invalid session.respond input: ${parsed.error.issues[0]?.message ?? ""}`,
    );
  }
  return parsed.data;
}

/**
 * `session.respond()` (docs/behaviour.md#answering-an-interaction-respond) with a parsed input.
 * Checks, then commits the answer and the tool's new state as one revision guarded by the message
 * revision, so it works in any process and exactly one of concurrent responders wins. The waiting
 * tool is woken by the committed mutation on the bus. When no live process runs the Turn, this
 * process takes the lease first and resumes the Turn. The checks need no host; the host is pinned
 * (created from the record just read if absent) only to commit.
 */
export async function respondToSessionInteraction(
  hosts: SessionHosts,
  session_id: string,
  input: RespondInput,
  actor: Actor | undefined,
  /**
   * The session's record as the caller had just read it (see `SessionHandle`), and the Interaction
   * as it read it with the session (`RespondPrefetch`); without the Interaction, both are read here.
   */
  known: RespondPrefetch & { session?: SessionRecord } = {},
): Promise<InteractionResult> {
  if (known.interaction === undefined) {
    // The Turn runs here and the tool waits here: judged on what this process committed, no read.
    const host = hosts.peek(session_id);
    const held = heldAnswer(host, input.interaction_id);
    if (host && held) return respondToHeld(hosts, host, input, actor, held, known.session);
  }
  // Read here: the session's lock is asked for beside the read (a caller that read asked before).
  const own_lock = known.interaction === undefined ? AnswerLock.start(hosts, session_id) : undefined;
  let session: SessionRecord | null = known.session ?? null;
  try {
    const read = await readAnswerContext(hosts, session_id, input.interaction_id, known);
    session = read.session;
    const judged = session && {
      closed: session.closed_at !== null,
      agent_id: session.agent_id,
      record: session,
    };
    return await respondWith(
      hosts,
      session_id,
      input,
      actor,
      { session: judged, found: read.found },
      own_lock ?? known.answer_lock,
    );
  } finally {
    await own_lock?.settle(session);
  }
}

/**
 * The session an answer is judged against: closed or not, its agent, and its record when it was read
 * (an answer taken from memory, `heldAnswer`, has none: the host knows the rest).
 */
interface AnswerSession {
  closed: boolean;
  agent_id: string;
  record: SessionRecord | undefined;
}

/**
 * An answer to the Interaction `heldAnswer` found (`held`, in `host`), judged on that copy: the
 * caller found it in the same synchronous block (nothing can have changed it since).
 */
export function respondToHeld(
  hosts: SessionHosts,
  host: SessionHost,
  input: RespondInput,
  actor: Actor | undefined,
  held: InteractionWithMessage,
  record?: SessionRecord,
): Promise<InteractionResult> {
  const session = { closed: host.isClosed, agent_id: host.agent.agent_id, record };
  return respondWith(hosts, host.session_id, input, actor, { session, found: held }, undefined);
}

/** The checks of `respondToSessionInteraction`, then the answer's commit. */
async function respondWith(
  hosts: SessionHosts,
  session_id: string,
  input: RespondInput,
  actor: Actor | undefined,
  { session, found }: { session: AnswerSession | null; found: InteractionWithMessage | null },
  answer_lock: AnswerLock | undefined,
): Promise<InteractionResult> {
  const prefetched_id = found?.record.interaction.interaction_id;
  if (prefetched_id !== undefined && prefetched_id !== input.interaction_id) {
    throw new Error(`Prefetched Interaction ${prefetched_id} is not ${input.interaction_id}`);
  }
  if (!session) throw new ParleyError("session_not_found", `Session not found: ${session_id}`);
  if (session.closed || hosts.peek(session_id)?.isClosed) {
    throw new ParleyError("session_closed", `Session is closed: ${session_id}`);
  }
  if (!found || found.record.session_id !== session_id) {
    throw new ParleyError(
      "interaction_not_found",
      `Pending Session Interaction not found: ${input.interaction_id}`,
    );
  }
  const { record, message } = found;
  assertRespondable(record.interaction, input.response);
  assertEditFitsTool(record.interaction, input.response, hosts.context.agents.get(session.agent_id));
  const allowance = allowanceOfAnswer(record.interaction, input.response);
  return hosts.use(
    session_id,
    async (host) =>
      commitResponse(host, { input, record, message }, actor, allowance, session.record, answer_lock),
    session.record,
  );
}

/**
 * The session and the answered Interaction with its message: as the caller read them, else in one
 * read. The checks that follow keep their order (session first).
 */
async function readAnswerContext(
  hosts: SessionHosts,
  session_id: string,
  interaction_id: string,
  known: RespondPrefetch & { session?: SessionRecord },
): Promise<{ session: SessionRecord | null; found: InteractionWithMessage | null }> {
  const { store } = hosts.context;
  if (known.interaction !== undefined) {
    return { session: known.session ?? (await store.getSession(session_id)), found: known.interaction };
  }
  const context = await store.getAnswerContext(session_id, interaction_id);
  return { session: context?.session ?? null, found: context?.interaction ?? null };
}

/** The answer, and the Interaction it answers with its message as read before the checks. */
interface Answer {
  input: RespondInput;
  record: InteractionRecord;
  message: SessionMessage;
}

async function commitResponse(
  host: SessionHost,
  { input, record, message }: Answer,
  actor: Actor | undefined,
  allowance: ToolAllowance | null,
  session: SessionRecord | undefined,
  answer_lock: AnswerLock | undefined,
): Promise<InteractionResult> {
  const lease: ClaimLease | null = host.ownsTurn ? null : await host.claim(answer_lock);
  // A tool of this process waiting for the answer goes on once its allowance is granted (below).
  let granted: () => void = () => undefined;
  if (allowance && !lease) {
    host.context.waiters.holdUntil(
      input.interaction_id,
      new Promise<void>((resolve) => {
        granted = resolve;
      }),
    );
  }
  try {
    return await commitAndResume(host, { input, record, message }, actor, allowance, session, lease);
  } finally {
    granted();
  }
}

/**
 * The answer's commit (see `commitAnswer`), its allowance's grant, then the Turn's resume where this
 * process claimed it (the tool of a Turn held here goes on from the committed mutation).
 */
async function commitAndResume(
  host: SessionHost,
  { input, record, message }: Answer,
  actor: Actor | undefined,
  allowance: ToolAllowance | null,
  session: SessionRecord | undefined,
  lease: ClaimLease | null,
): Promise<InteractionResult> {
  // No copy here (another process runs the Turn, or it is about to be resumed): the message read with
  // the Interaction serves. Interactions and messages only move forward (pending → terminal,
  // streaming → closed), so this copy refuses only what a later read would refuse too; an outdated
  // copy fails its revision check and the writer reads the message again.
  const stored = host.writer.cached(record.message_id) === undefined ? message : undefined;
  const turn_id = record.interaction.request.turn_id;
  let result: InteractionResult | undefined;
  let committed_open: AssistantMessage | undefined;
  try {
    const committed = await commitAnswer(
      host,
      { input, actor, message_id: record.message_id, stored },
      answerHandOver(host, lease, input.interaction_id, turn_id),
    );
    if (lease && committed) {
      if (committed.epoch === undefined) throw new Error("The answer's commit claimed no epoch");
      lease.claimed(committed.epoch);
    }
    result = committed?.value;
    committed_open = committed?.message;
  } catch (error) {
    if (lease) await host.unclaim(lease);
    throw error;
  }
  if (!result) {
    if (lease) await host.unclaim(lease);
    throw new Error(`Responding to ${input.interaction_id} committed nothing`);
  }
  // Only the answer that committed grants its allowance (of two at once, the loser's must add
  // nothing), and before the Turn is resumed here, so that the resumed Turn's next Step checkpoint
  // applies it. A Turn held live elsewhere may pass one checkpoint before the grant lands; its next
  // one applies it.
  if (allowance) {
    try {
      await grantAllowance(host, allowance);
    } catch (error) {
      host.context.logger?.error({ session_id: host.session_id, err: error }, "granting an allowance failed");
    }
  }
  // The answer is committed: that is what the caller waits for. Resuming the Turn (reading it back,
  // replaying the Step) is the lease holder's work and does not delay the acknowledgement.
  if (lease) {
    host.takeOverInBackground({
      lease,
      resolved_here: new Set([record.tool_call_id]),
      known: {
        ...(committed_open?.status === "streaming" ? { open: committed_open } : {}),
        // The queued commands the resumed Turn starts from: as the claiming commit reported them
        // (see `QueuedCommandsSeen`), else read (see `KnownUnderLease`).
        commands: queuedAfterClaim(host),
        // A granted allowance changed the record since it was read (none read: the resume reads it).
        ...(allowance || session === undefined ? {} : { record: session }),
      },
    });
  } else if (!host.ownsTurn) {
    host.writer.forget(record.message_id);
    // The lease was held elsewhere; if that holder was parking the Turn, it may have read the Turn
    // before this commit. Try once more now that the answer is committed (no lost wake-up).
    if (host.parkWaitingTurns) host.resumeIfAnsweredInBackground();
  }
  return result;
}

/**
 * Who continues the answered tool, decided before the answer commits: this process resumes the Turn
 * it claims (`claim`), or a tool of the Turn this process runs waits for the answer (`epoch`: the
 * Turn's; the commit is fenced by it), or another process runs the Turn and hands the answer over
 * itself (none). In the first two, the answer is handed over in its own commit.
 */
type AnswerHandOver = { claim: { holder: string; turn_id: string } } | { epoch: number } | undefined;

function answerHandOver(
  host: SessionHost,
  lease: ClaimLease | null,
  interaction_id: string,
  turn_id: string,
): AnswerHandOver {
  if (lease) return { claim: { holder: lease.holder_id, turn_id } };
  const epoch = host.ownsTurn ? host.context.waiters.handOverOf(interaction_id)?.epoch : undefined;
  return epoch === undefined ? undefined : { epoch };
}

/**
 * The answer's revision: the Interaction answered, its tool `running` (or still waiting for its
 * other Interactions, or failed when denied), and — when `hand_over` names who continues — the
 * answer handed over (`resumed_at`), so that a crash from here on fails the tool as interrupted and
 * never runs its side effect twice.
 */
async function commitAnswer(
  host: SessionHost,
  answer: {
    input: RespondInput;
    actor: Actor | undefined;
    message_id: string;
    stored: SessionMessage | undefined;
  },
  hand_over: AnswerHandOver,
): Promise<Checkpointed<InteractionResult>> {
  const { input, actor, message_id, stored } = answer;
  try {
    return await host.writer.updateAssistant(
      message_id,
      (current, now) => {
        const answered = respondToInteraction(
          current,
          {
            interaction_id: input.interaction_id,
            response: input.response,
            ...(actor === undefined ? {} : { responded_by: actor.user_id }),
          },
          now,
        );
        if (!answered || !hand_over) return answered;
        const handedOver = markInteractionResumed(answered.message, input.interaction_id, now);
        return handedOver ? { ...answered, message: handedOver.message } : answered;
      },
      { ...hand_over, ...(stored?.type === "assistant" ? { stored } : {}) },
    );
  } catch (error) {
    // The Turn stopped being this process's between the check and the commit: its new holder hands
    // the answer over, so the answer commits as any other process's would.
    if (hand_over && "epoch" in hand_over && error instanceof TurnFencedError) {
      return commitAnswer(host, answer, undefined);
    }
    throw error;
  }
}

function queuedAfterClaim(host: SessionHost): Promise<SessionCommand[]> {
  const reported = host.writer.queued.take();
  if (reported) return Promise.resolve(reported);
  const { store } = host.context;
  const read = store
    .listQueuedCommands(host.session_id)
    .catch(() => store.listQueuedCommands(host.session_id));
  // Awaited by the resume only; a resume that never starts leaves it unread.
  read.catch(() => undefined);
  return read;
}
