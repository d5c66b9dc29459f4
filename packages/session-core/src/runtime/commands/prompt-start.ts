import { StoreConflictError } from "../../errors.js";
import type { TurnLease } from "../../ports/turn-lease.js";
import type { SessionMessage } from "../../schema/messages.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import type { SessionRecord } from "../../schema/session.js";
import { loadAllMessages } from "../runtime-context.js";
import type { ClaimLease } from "../session/claim-lease.js";
import { effectiveCatchUp } from "../session/session-config.js";
import type { TurnHandle } from "../session/session-facade.js";
import { userMessageOf } from "../turn/turn-records.js";
import type { CommandHost } from "./command-host.js";

/** What starting a prompt here needs of the host, beyond a command's (`SessionHost` has it). */
export interface PromptStartHost extends CommandHost {
  readonly isClosed: boolean;
  /** The session's lock for a Turn this process starts or resumes (see `SessionHost.claim`). */
  claim(): Promise<ClaimLease | null>;
  unclaim(lease: TurnLease, options?: { drive_queue?: false }): Promise<void>;
  /** Runs the Turn `turn_id` here with `lease` (`start` runs it). */
  startTurn(lease: TurnLease, turn_id: string, start: (turn: { runPrompted(): void }) => void): unknown;
}

/** A prompt of an idle session, as `startPromptHere` commits it. */
export interface PromptToStart {
  query: string;
  request_id?: string;
  turn_id: string;
  created_at: number;
  auto_title?: string;
  /** The session's record as the caller just read it; else it is read here. */
  known?: SessionRecord;
}

/**
 * DESIGN §10.6 checkpoint 1 in the commit that acknowledges the prompt: when this process can drive
 * the session now (no Turn here, the session's lock free), the prompt's user message, the Turn's
 * `start`, the prompt's command (recorded applied) and the claim of the Turn are ONE commit, and the
 * Turn runs here at once from it — no queued command, no lease commit, no read of what it just
 * wrote. Null when that does not apply (a Turn active or a command queued, the lock held elsewhere,
 * a `request_id` seen before): the caller queues the prompt as usual.
 */
export async function startPromptHere(
  host: PromptStartHost,
  prompt: PromptToStart,
  /** Queues the prompt the usual way; run under the lock when the session turns out busy. */
  queue: () => Promise<TurnHandle>,
): Promise<{ auto_titled: boolean } | { handle: TurnHandle } | null> {
  if (host.ownsTurn || host.isClosed) return null;
  const { store, ids } = host.context;
  const [lease, record] = await Promise.all([
    host.claim(),
    prompt.known ?? store.getSession(host.session_id),
  ]);
  if (!lease) return null;
  const { session_id } = host;
  const { turn_id } = prompt;
  // The configuration a new Turn starts with (no `set` is queued: the commit is refused otherwise).
  const catchUp = record ? effectiveCatchUp(record) : undefined;
  let epoch: number | undefined;
  let auto_titled = false;
  let history: SessionMessage[] | undefined;
  try {
    // The whole session, read with the lock held (its last holder's commits are all in): the Turn's
    // first model request sends it (`StartingHistory`), and it gives the user message its sequence.
    const stored = await loadAllMessages(store, session_id);
    const next = (stored.at(-1)?.sequence ?? 0) + 1;
    host.writer.sequence.readUnderLock(next);
    const message = { ids, session_id, turn_id, query: prompt.query, input_type: "prompt" as const };
    const user = await host.writer.appendMessage((sequence, now) => userMessageOf(message, sequence, now), {
      preceding_mutation: turnStart(host, turn_id, prompt.created_at),
      start: {
        claim: { holder: lease.holder_id, turn_id },
        starts_turn: {
          turn_id,
          command_id: ids.command(),
          query: prompt.query,
          created_at: prompt.created_at,
          ...(prompt.request_id === undefined ? {} : { request_id: prompt.request_id }),
          ...(prompt.auto_title === undefined ? {} : { auto_title: prompt.auto_title }),
        },
        ...(catchUp?.patch ? { session_patch: catchUp.patch } : {}),
      },
      onCommitted: (result) => {
        epoch = result.epoch;
        auto_titled = result.auto_titled === true;
      },
    });
    // A message appended meanwhile (the user message then went later) is not in `stored`: the first
    // request reads the session instead.
    if (user.sequence === next) history = [...stored, user];
  } catch (error) {
    // Not idle after all, or a retried request: the prompt is queued as usual — while the lock is
    // still held, so that giving the claim back (which reads the queue and drives it) sees it. Given
    // back first, that read could miss the prompt and this call's own wake-up find the host busy.
    // A prompt that joined the active Turn needs no driver here (that Turn takes it), so the claim
    // is given back without driving the queue: a prompt behind a waiting Turn wakes nothing.
    if (error instanceof StoreConflictError && (error.kind === "queued" || error.kind === "revision")) {
      let handle: TurnHandle | undefined;
      try {
        handle = await queue();
        return { handle };
      } finally {
        await host.unclaim(lease, handle && handle.id !== prompt.turn_id ? { drive_queue: false } : {});
      }
    }
    await host.unclaim(lease);
    throw error;
  }
  if (epoch === undefined) {
    await host.unclaim(lease);
    throw new Error(`The start of Turn ${turn_id} claimed no epoch`);
  }
  lease.claimed(epoch);
  if (catchUp) host.settings.effective = catchUp.effective;
  if (history) host.writer.startingHistory.keep(turn_id, epoch, history);
  host.startTurn(lease, turn_id, (turn) => turn.runPrompted());
  return { auto_titled };
}

function turnStart(host: CommandHost, turn_id: string, now: number): UnsequencedMutation {
  return { ...host.writer.newMutationBase(now), variant: "turn", type: "start", turn_id, status: "running" };
}
