import type { TurnRecord } from "../schema/turn.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { SessionHosts } from "./session/session-hosts.js";

/** Turns one pass takes over at most; the next pass (1 s later) takes the rest. */
const PASS_TURNS = 200;
/** Sessions read per page of queued commands; every page is read (no cap starves newer sessions). */
const COMMAND_PAGE = 500;
/**
 * How long a Turn stays `queued` before another process drives it: the process that committed the
 * prompt starts it at once (milliseconds), and another one taking the lease meanwhile would fence
 * it. A queued command whose notice was lost, or whose committer died, is driven by the first pass
 * after the grace: at worst 250 ms + one pass interval (1 s) + the drive, well inside the 2 s it
 * has to reach its Turn (docs/behaviour.md#durability).
 */
const QUEUED_GRACE_MS = 250;

/**
 * The liveness pass (docs/behaviour.md#durability, DESIGN §10.7), run every second by the recovery
 * loop: one statement (`listWorkNeedingDriver`) finds the Turns whose holder is gone and the
 * sessions whose queued commands nobody drives, and this process drives them. At rest it finds
 * nothing, so an idle instance costs one transaction per pass.
 */
export class DriverPass {
  readonly #context: RuntimeContext;
  readonly #hosts: SessionHosts;
  #sweeping = false;

  constructor(context: RuntimeContext, hosts: SessionHosts) {
    this.#context = context;
    this.#hosts = hosts;
  }

  /** `SessionRuntime.recover()`: a failure to read rejects (startup recovery must not half-run). */
  async run(): Promise<{ resumed_session_ids: string[] }> {
    await this.#settleAnsweredWaiters();
    const work = await this.#context.store.listWorkNeedingDriver({
      turn_limit: PASS_TURNS,
      command_session_limit: COMMAND_PAGE,
      queued_grace_ms: QUEUED_GRACE_MS,
    });
    const driven = new Set<string>();
    const resumed_session_ids = await this.#driveTurns(work.turns, driven);
    await this.#driveCommandPages(work.command_session_ids, driven);
    return { resumed_session_ids };
  }

  /**
   * The command half of the pass alone (`SessionRuntime.sweepCommands()`), for a caller that knows
   * commands may have been missed (a test, a reconnected bus) or a runtime's own sweep timer.
   */
  async sweepCommands(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      await this.#settleAnsweredWaiters();
      const first = await this.#commandPage(undefined);
      await this.#driveCommandPages(first, new Set());
    } catch (error) {
      this.#context.logger?.warn({ err: error }, "sweeping queued commands failed");
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * Only the Turns that need a driver now (DESIGN §10.7): `queued` or `running` with no live lease
   * holder. Waiting Turns are rows nobody reads until answered. `driven` collects the sessions
   * whose queue was driven here, so the command half does not drive them twice.
   */
  async #driveTurns(turns: TurnRecord[], driven: Set<string>): Promise<string[]> {
    const resumed_session_ids: string[] = [];
    for (const turn of turns) {
      if (this.#context.closing.aborted) break;
      const { session_id } = turn;
      try {
        const record = await this.#context.store.getSession(session_id);
        // A closed session is never resumed (docs/behaviour.md#close).
        if (!record || record.closed_at !== null) continue;
        if (turn.state === "queued") {
          // Its prompt is committed and nobody started it: the queue's driver starts it.
          driven.add(session_id);
          await this.#driveQueued(session_id);
          continue;
        }
        const resumed = await this.#hosts.use(
          session_id,
          async (host) => !host.ownsTurn && (await host.takeOver()),
          record,
        );
        if (resumed) resumed_session_ids.push(session_id);
      } catch (error) {
        this.#context.logger?.error({ session_id, err: error }, "resuming the session failed");
      }
    }
    return resumed_session_ids;
  }

  /**
   * The wake-up of commands (docs/behaviour.md#durability) and its safety net: every session with a
   * queued `prompt` or `stop` that needs a driver gets one, page after page from `first`. Another
   * instance's commit therefore reaches the Turn without any notification.
   */
  async #driveCommandPages(first: string[], skip: ReadonlySet<string>): Promise<void> {
    let page = first;
    for (;;) {
      for (const session_id of page) {
        if (this.#context.closing.aborted) return;
        if (!skip.has(session_id)) await this.#driveQueued(session_id);
      }
      const after = page.at(-1);
      if (page.length < COMMAND_PAGE || after === undefined) return;
      page = await this.#commandPage(after);
    }
  }

  #commandPage(after: string | undefined): Promise<string[]> {
    return this.#context.store.listSessionsWithQueuedCommands({
      after,
      limit: COMMAND_PAGE,
      queued_grace_ms: QUEUED_GRACE_MS,
    });
  }

  /**
   * A session with queued commands that need a driver: a Turn running here applies a queued stop at
   * once (prompts at its next checkpoint); a session no live process drives is taken by this
   * process (its lease decides).
   */
  async #driveQueued(session_id: string): Promise<void> {
    const held = this.#hosts.peek(session_id);
    if (held?.ownsTurn) {
      held.wake();
      return;
    }
    try {
      await this.#hosts.use(session_id, async (host) => host.wake());
    } catch (error) {
      this.#context.logger?.warn({ session_id, err: error }, "driving queued commands failed");
    }
  }

  /**
   * No lost wake-up (docs/behaviour.md#durability): a tool of a Turn held here waits on the bus for
   * its answer's `part` mutation; if that notice was lost, the committed answer is read here
   * instead. It reads only what this process's live waiters wait for: nothing at rest.
   */
  async #settleAnsweredWaiters(): Promise<void> {
    const { store, waiters } = this.#context;
    for (const interaction_id of waiters.waitingInteractionIds()) {
      const record = await store.getInteraction(interaction_id);
      if (record && record.interaction.status !== "pending") waiters.settleFrom(record.interaction);
    }
  }
}
