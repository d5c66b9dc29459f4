import { StoreConflictError } from "../../errors.js";
import type { Clock } from "../../ports/clock.js";
import type { EventBus } from "../../ports/event-bus.js";
import type { CommitResult, SessionCommit, SessionEvent, SessionStore } from "../../ports/session-store.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { RuntimeIds } from "../ids.js";
import type { RuntimeLogger } from "../session-runtime-options.js";
import type { AssistantTransition, AssistantTransitionFn, MutationSpec } from "../transitions/transition.js";
import { turnProgressOf } from "../turn/turn-progress.js";
import { checkpointSpec, type LiveCopy, LiveState, liveStateAlone, replayLive } from "./live-copies.js";
import { NextSequence } from "./next-sequence.js";
import { QueuedCommandsSeen } from "./queued-commands-seen.js";
import {
  type AppendOptions,
  type CheckpointOptions,
  interactionRowsOf,
  loggedMutations,
  messageRevision,
  mutationOf,
  WHOLE_MESSAGE,
  wholeMessageMutation,
} from "./revision-mutations.js";
import { StartingHistory } from "./starting-history.js";
import { WriteChain } from "./write-chain.js";

/** The Turn's lease was taken over: it must stop writing and give the session up silently. */
export class TurnFencedError extends Error {
  override readonly name = "TurnFencedError";
}

const MAX_CONFLICT_RETRIES = 20;

/**
 * What a checkpoint committed (`value`: what its transition returned; `epoch` when it claimed the
 * Turn); null when nothing changed.
 */
export type Checkpointed<T> = { message: AssistantMessage; value: T | undefined; epoch?: number } | null;

interface WriterDeps {
  session_id: string;
  store: SessionStore;
  bus: EventBus;
  clock: Clock;
  ids: RuntimeIds;
  logger: RuntimeLogger | undefined;
  /** Called each time the last queued write settles (the session's host may then be evicted). */
  onIdle?: () => void;
}

/**
 * The per-session serial write chain: every write of this process to the session runs here
 * one after another. A checkpoint is "build the complete snapshot from the live copy → commit one
 * revision → update the in-memory copy → publish"; a live change (DESIGN §10.6) is "apply to the
 * live copy → publish `live: true`", with no commit. Another process's commit shows up as a
 * revision conflict: the message is reloaded, its live changes replayed and the transition applied
 * again (re-validating). A fenced commit ends the Turn. A crash loses only the live copies.
 */
export class SessionWriter {
  readonly #deps: WriterDeps;
  /** The last committed copy of each open assistant message this process writes. */
  readonly #open = new Map<string, AssistantMessage>();
  /** Live state of open assistant messages, present while it differs from the committed copy. */
  readonly #live: LiveState;
  /** The queued commands the latest commit reported, for the Step checkpoint after it. */
  readonly queued = new QueuedCommandsSeen();
  /** Where this process's next message goes. */
  readonly sequence: NextSequence;
  /** The messages the first model request of a Turn started here sends. */
  readonly startingHistory = new StartingHistory();
  readonly #chain: WriteChain;

  constructor(deps: WriterDeps) {
    this.#deps = deps;
    this.#chain = new WriteChain(deps.onIdle);
    this.sequence = new NextSequence(() => deps.store.lastSequence(deps.session_id));
    this.#live = new LiveState({
      session_id: deps.session_id,
      bus: deps.bus,
      logger: deps.logger,
      liveMutationId: () => this.#deps.ids.mutation(),
    });
  }

  get session_id(): string {
    return this.#deps.session_id;
  }

  /** True when no write is queued or running. */
  get isIdle(): boolean {
    return this.#chain.isIdle;
  }

  /** Settles once every write queued so far has settled (later ones may still run: see `isIdle`). */
  settled(): Promise<void> {
    return this.#chain.settled();
  }

  /** Runs `work` after every write queued before it. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    return this.#chain.run(work);
  }

  /**
   * A checkpoint (DESIGN §10.6): applies a pure transition to an assistant message, on top of its
   * live state, as one revision; null when it changed nothing. It publishes ONE mutation for the
   * message (`checkpointSpec`); a message not committed yet is inserted (`expected_revision: 0`).
   * `stored`: a copy the caller just read from the store, used as this chain's read of the message
   * when there is no in-memory copy (the caller overlapped that read with other work).
   */
  updateAssistant<T>(
    message_id: string,
    transition: AssistantTransitionFn<T>,
    options: CheckpointOptions = {},
  ): Promise<Checkpointed<T>> {
    return this.serial(() => this.#checkpoint(message_id, transition, options));
  }

  /**
   * The live state of the message as one revision (the stream ran `PARLEY_STREAM_CHECKPOINT_MS`
   * without a checkpoint); null when it has none.
   */
  checkpointLive(message_id: string, options: CheckpointOptions = {}): Promise<Checkpointed<undefined>> {
    return this.serial(async () =>
      this.#live.has(message_id) ? this.#checkpoint(message_id, liveStateAlone, options) : null,
    );
  }

  /**
   * Opens an assistant message live, with no commit (DESIGN §10.6): it takes the next free
   * `sequence` now and is inserted at its first checkpoint. Publishes it whole (`revision: 0`).
   */
  beginLive(build: (sequence: number, now: number) => AssistantMessage): Promise<AssistantMessage> {
    return this.serial(async () => {
      const sequence = await this.sequence.peek();
      const now = this.#deps.clock.now();
      const message: AssistantMessage = { ...build(sequence, now), revision: 0 };
      this.sequence.advancePast(sequence);
      this.#live.begin(message, now);
      return message;
    });
  }

  /**
   * A live change of an open assistant message (DESIGN §10.6): applied to its live copy and
   * published with `live: true`, never committed on its own; the next checkpoint carries it.
   */
  applyLive(message_id: string, transition: AssistantTransitionFn): Promise<void> {
    return this.serial(async () => {
      const base =
        this.#live.get(message_id)?.message ?? this.#open.get(message_id) ?? (await this.#load(message_id));
      this.#live.apply(message_id, base, transition, this.#deps.clock.now());
    });
  }

  async #checkpoint<T>(
    message_id: string,
    transition: AssistantTransitionFn<T>,
    options: CheckpointOptions,
  ): Promise<Checkpointed<T>> {
    const live = this.#live.get(message_id);
    if (live?.uncommitted) return this.#insertLive(live, transition, options);
    const cachedCopy = this.#open.get(message_id);
    let committed = cachedCopy ?? options.stored ?? (await this.#load(message_id));
    let current = live?.message ?? committed;
    let fresh = cachedCopy === undefined;
    const reload = async () => {
      this.#open.delete(message_id);
      committed = await this.#load(message_id);
      const replayed = replayLive(
        committed,
        this.#live.get(message_id)?.transitions ?? [],
        this.#deps.clock.now(),
      );
      this.#live.replace(message_id, replayed);
      current = replayed.message;
      fresh = true;
    };
    for (let attempt = 0; ; attempt += 1) {
      const now = this.#deps.clock.now();
      let result: AssistantTransition<T> | null;
      try {
        result = transition(current, now);
      } catch (error) {
        // Our copy may predate another process's commit (e.g. the Interaction it created): decide
        // again on the stored state before refusing.
        if (fresh) throw error;
        await reload();
        continue;
      }
      if (!result) {
        if (fresh) return null;
        await reload();
        continue;
      }
      const next: AssistantMessage = { ...result.message, revision: committed.revision + 1, updated_at: now };
      const spec = checkpointSpec(committed, next, result, this.#live.has(message_id));
      try {
        const { epoch } = await this.#commitRevision(next, committed, result, spec, options);
        return { message: next, value: result.value, ...(epoch === undefined ? {} : { epoch }) };
      } catch (error) {
        this.#throwUnlessRetried(error, "revision", attempt);
        await reload();
      }
    }
  }

  /** The first checkpoint of a message opened live: it is inserted, published whole. */
  async #insertLive<T>(
    live: LiveCopy,
    transition: AssistantTransitionFn<T>,
    options: CheckpointOptions,
  ): Promise<Checkpointed<T>> {
    const now = this.#deps.clock.now();
    const result = transition(live.message, now);
    if (!result) return null;
    for (let attempt = 0; ; attempt += 1) {
      const next: AssistantMessage = {
        ...result.message,
        sequence: live.message.sequence,
        revision: 1,
        updated_at: now,
      };
      try {
        const { epoch } = await this.#commitRevision(next, undefined, result, WHOLE_MESSAGE, options);
        return { message: next, value: result.value, ...(epoch === undefined ? {} : { epoch }) };
      } catch (error) {
        this.#throwUnlessRetried(error, "sequence", attempt);
        // Another process took the sequence it was opened at: it moves after the last one.
        live.message = { ...live.message, sequence: await this.sequence.reread() };
      }
    }
  }

  /** Commits `next` (the revision after `committed`; none: an insert) with its Interaction rows; then it is the committed copy. */
  async #commitRevision(
    next: AssistantMessage,
    committed: AssistantMessage | undefined,
    result: AssistantTransition<unknown>,
    spec: MutationSpec | undefined,
    options: CheckpointOptions,
  ): Promise<CommitResult> {
    const own =
      spec === undefined ? undefined : mutationOf(this.newMutationBase(next.updated_at), next, spec);
    const followed_by = options.followed_by;
    return this.#commitAndPublish(
      {
        session_id: this.session_id,
        ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
        ...(options.claim === undefined ? {} : { claim: options.claim }),
        message: messageRevision(next, committed),
        ...interactionRowsOf(this.session_id, next, result),
        ...loggedMutations(own, followed_by),
      },
      () => {
        this.#live.drop(next.message_id);
        this.#remember(next);
        followed_by?.onCommitted?.();
      },
    );
  }

  /**
   * Appends a new message at the next free `sequence` (revision 1). `publish: false` commits it with
   * no mutation (it takes no event id: `set(..., { publish_mutation: false })`).
   */
  appendMessage<M extends SessionMessage>(
    build: (sequence: number, now: number) => M,
    options: AppendOptions = {},
  ): Promise<M> {
    return this.serial(async () => {
      for (let attempt = 0; ; attempt += 1) {
        const sequence = await this.sequence.peek();
        const now = this.#deps.clock.now();
        const message = build(sequence, now);
        try {
          await this.#commitAndPublish(
            {
              session_id: this.session_id,
              ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
              ...(options.settle_commands === undefined ? {} : { settle_commands: options.settle_commands }),
              ...options.start,
              message: { snapshot: message, expected_revision: 0 },
              ...(options.publish === false
                ? {}
                : { mutation: wholeMessageMutation(this.newMutationBase(now), message) }),
              ...(options.publish === false || options.preceding_mutation === undefined
                ? {}
                : { preceding_mutation: options.preceding_mutation }),
            },
            (result) => {
              this.sequence.advancePast(message.sequence);
              if (message.type === "assistant") this.#remember(message);
              options.onCommitted?.(result);
            },
          );
          return message;
        } catch (error) {
          this.#throwUnlessRetried(error, "sequence", attempt);
          this.sequence.forget();
        }
      }
    });
  }

  /** A commit without a message: a `turn`/`session` mutation and/or a session patch. */
  commitSessionChange(
    change: Pick<
      SessionCommit,
      "epoch" | "mutation" | "session_patch" | "settle_commands" | "ends_turn" | "turn"
    >,
    onCommitted: () => void = () => undefined,
  ): Promise<CommitResult> {
    return this.serial(async () => {
      try {
        return await this.#commitAndPublish({ session_id: this.session_id, ...change }, onCommitted);
      } catch (error) {
        throw this.#translate(error);
      }
    });
  }

  /**
   * Drops the in-memory copy of a message this process does not write to regularly (a `respond`
   * taken for a Turn another process runs), so such copies neither go stale nor pile up.
   */
  forget(message_id: string): void {
    this.#open.delete(message_id);
    this.#live.drop(message_id);
  }

  /** The latest in-memory state of an open assistant message: its live copy, else its committed one. */
  cached(message_id: string): AssistantMessage | undefined {
    return this.#live.get(message_id)?.message ?? this.#open.get(message_id);
  }

  /** The open message whose live copy holds the tool part of `tool_call_id` (not committed yet). */
  locateLiveTool(tool_call_id: string): string | undefined {
    return this.#live.locateTool(tool_call_id);
  }

  /** The committed in-memory copy of an open assistant message (after this process's last commit). */
  committed(message_id: string): AssistantMessage | undefined {
    return this.#open.get(message_id);
  }

  newMutationBase(now: number) {
    return { session_id: this.session_id, created_at: now };
  }

  async #commitAndPublish(
    commit: SessionCommit,
    applyLocally: (result: CommitResult) => void,
  ): Promise<CommitResult> {
    const turn = turnProgressOf(commit);
    const committing = this.queued.request(turn ? { ...commit, turn } : commit);
    const result = await this.#deps.store.commit(committing);
    this.queued.record(committing, result);
    if (result.event) this.#live.followed(result.event.event_id);
    applyLocally(result);
    const session_events = [result.preceding_event, result.event].filter(
      (event): event is SessionEvent => event !== undefined,
    );
    if (session_events.length > 0 || result.interaction_events.length > 0) {
      try {
        await this.#deps.bus.publish({ session_events, interaction_events: result.interaction_events });
      } catch (error) {
        // Committed state stands; readers that need every event replay it from the store.
        this.#deps.logger?.error(
          { session_id: this.session_id, err: error },
          "publishing committed events failed",
        );
      }
    }
    return result;
  }

  #remember(message: AssistantMessage): void {
    if (message.status === "streaming") this.#open.set(message.message_id, message);
    else this.#open.delete(message.message_id);
  }

  async #load(message_id: string): Promise<AssistantMessage> {
    const stored = await this.#deps.store.getMessage(this.session_id, message_id);
    if (stored?.type !== "assistant") throw new Error(`Assistant message not found: ${message_id}`);
    return stored;
  }

  /** A conflict of `kind` is met by trying again (a bounded number of times); anything else is thrown. */
  #throwUnlessRetried(error: unknown, kind: "revision" | "sequence", attempt: number): void {
    if (error instanceof StoreConflictError && error.kind === kind && attempt < MAX_CONFLICT_RETRIES) return;
    throw this.#translate(error);
  }

  #translate(error: unknown): unknown {
    if (error instanceof StoreConflictError && error.kind === "fenced")
      return new TurnFencedError(error.message);
    return error;
  }
}
