import type { CancelReason } from "../../schema/interaction.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import type { StopResult, TurnResult } from "../../schema/session.js";
import { closeAssistantMessage } from "../transitions/assistant-transitions.js";
import { cancelInteraction, pendingInteractionsOf } from "../transitions/interaction-transitions.js";
import { type QueuePlan, queuedStop } from "../turn/queue-plan.js";
import type { FinishingTurn } from "../turn/turn-finishes.js";
import type { CommandHost } from "./command-host.js";

export const PROMPT_CANCELLED = "Prompt cancelled because session was stopped";
export const TURN_STOPPED = "Turn stopped";

/** How often `stop()` reads its command again while another instance applies it. */
const STOP_POLL_MS = 50;

const IDLE: StopResult = { stopped: false, cancelled_queued_prompts: 0, reason: "idle" };

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `stop` from any instance (docs/behaviour.md#commands): the stop is committed as a command, then
 * applied by whoever drives the session — the Turn running here, this process when it can take
 * the lease (no live owner), or the owning process — and the call returns the result committed
 * with it.
 */
export async function stopSession(
  host: CommandHost,
  reason: CancelReason = "turn_stopped",
): Promise<StopResult> {
  const { store, ids, clock } = host.context;
  if (!host.ownsTurn && (await isIdleEverywhere(host))) return IDLE;
  const { command } = await store.enqueueCommand({
    session_id: host.session_id,
    command_id: ids.command(),
    command: { kind: "stop", input: { reason: reason === "session_disposed" ? reason : "turn_stopped" } },
    created_at: clock.now(),
  });
  host.writer.queued.forget();
  for (;;) {
    // A Turn running here stops; else this process drives the stop when it can take the lease,
    // and waits for the stopped orphan Turn it started.
    const started = await host.requestStop(reason);
    await started?.finished;
    const stored = await store.getCommand(host.session_id, command.command_id);
    if (stored?.kind === "stop" && stored.status !== "queued") return stored.result ?? IDLE;
    if (!stored) return IDLE;
    await delay(STOP_POLL_MS);
  }
}

/** No Turn is active (running, waiting or about to start) in any process: nothing to stop. */
async function isIdleEverywhere(host: CommandHost): Promise<boolean> {
  const { store } = host.context;
  const [active, open] = await Promise.all([
    store.getActiveTurnId(host.session_id),
    store.listOpenAssistantMessages(host.session_id),
  ]);
  return active === null && open.length === 0;
}

/** A `stop` queued for the Turn running here (by any instance) stops it now, not at its next checkpoint. */
export async function applyQueuedStop(host: CommandHost): Promise<void> {
  const turn = host.activeTurn;
  if (!turn) return;
  const stop = queuedStop(await host.context.store.listQueuedCommands(host.session_id));
  if (stop && host.activeTurn === turn) await turn.stop(stop.input.reason);
}

/**
 * The first step of `stop` for a session with no open Turn, by the lease holder (`epoch`): the
 * prompts queued for a Turn that never started are cancelled — the Turn starts and fails at once
 * (a `turn` start/finish pair) — and every queued `stop` is answered, in the finish's commit.
 */
export async function cancelQueuedTurn(
  host: CommandHost,
  epoch: number,
  plan: Extract<QueuePlan, { kind: "cancel_queued" }>,
): Promise<void> {
  const { turn_id } = plan;
  const result: StopResult = { ...IDLE, cancelled_queued_prompts: plan.cancelled_prompts };
  const settle_commands = plan.stop_command_ids.map((command_id) => ({
    command_id,
    status: "applied" as const,
    result,
  }));
  const { clock } = host.context;
  if (turn_id === null) {
    await host.writer.commitSessionChange({ epoch, settle_commands });
    return;
  }
  const turnMutation = (type: "start" | "finish"): UnsequencedMutation => ({
    ...host.writer.newMutationBase(clock.now()),
    variant: "turn",
    turn_id,
    type,
    status: type === "start" ? "running" : "failed",
    ...(type === "finish" ? { error: PROMPT_CANCELLED } : {}),
  });
  await host.writer.commitSessionChange({ epoch, mutation: turnMutation("start") });
  await host.writer.commitSessionChange({
    epoch,
    mutation: turnMutation("finish"),
    settle_commands,
    ends_turn: { turn_id, cancel_queued_prompts: true },
  });
}

/**
 * The stopped end of a Turn (the Turn's `stop`, from a command, `close`, or a queued stop read at
 * a checkpoint): each pending Interaction is cancelled in its own revision, then the message closes
 * `stopped`; the prompts queued for this Turn are cancelled with its finish, and every queued stop
 * (from any instance) is answered in the same commit. A failure to write it is logged.
 */
export async function writeStoppedFinish(turn: FinishingTurn, reason: CancelReason): Promise<TurnResult> {
  const { context, session_id, segment, turn_id } = turn;
  try {
    const message_id = await segment.settled();
    if (message_id) {
      const current =
        turn.writer.cached(message_id) ?? (await context.store.getMessage(session_id, message_id));
      for (const interaction of current?.type === "assistant" ? pendingInteractionsOf(current) : []) {
        await segment.update(message_id, (latest, now) =>
          cancelInteraction(latest, { interaction_id: interaction.interaction_id, reason }, now),
        );
      }
      await segment.update(message_id, (latest, now) =>
        latest.status === "streaming"
          ? closeAssistantMessage(latest, {
              status: "stopped",
              tool_error: TURN_STOPPED,
              cancel_reason: reason,
              now,
            })
          : null,
      );
    }
    const queued = await context.store.listQueuedCommands(session_id);
    const result: StopResult = {
      stopped: true,
      turn_id,
      cancelled_queued_prompts: queued.filter(
        (command) => command.kind === "prompt" && command.turn_id === turn_id,
      ).length,
      reason: "stopped",
    };
    await turn.records.turnMutation(
      { type: "finish", status: "stopped", error: TURN_STOPPED },
      () => turn.markFinished(),
      {
        settle_commands: queued
          .filter((command) => command.kind === "stop")
          .map((command) => ({ command_id: command.command_id, status: "applied", result })),
        ends_turn: { turn_id, cancel_queued_prompts: true },
      },
    );
  } catch (error) {
    context.logger?.error({ session_id, err: error }, "stopping the turn failed");
  }
  return { turn_id, text: "", success: false, error: TURN_STOPPED };
}
