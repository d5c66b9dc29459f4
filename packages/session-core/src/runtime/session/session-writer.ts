import { StoreConflictError } from "../../errors.js";
import type { Clock } from "../../ports/clock.js";
import type { EventBus } from "../../ports/event-bus.js";
import type {
  CommitResult,
  InteractionEvent,
  InteractionRecord,
  SessionCommit,
  SessionEvent,
  SessionStore,
} from "../../ports/session-store.js";
import type { AssistantMessage, SessionMessage } from "../../schema/messages.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import type { RuntimeIds } from "../ids.js";
import type { RuntimeLogger } from "../session-runtime-options.js";
import type { AssistantTransition, AssistantTransitionFn, MutationSpec } from "../transitions/transition.js";
import { turnProgressOf } from "../turn/turn-progress.js";

/** The Turn's lease was taken over: it must stop writing and give the session up silently. */
export class TurnFencedError extends Error {
  override readonly name = "TurnFencedError";
}

const MAX_CONFLICT_RETRIES = 20;

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
 * one after another, as "build the complete snapshot → commit one revision → update the in-memory
 * copy → publish". Another process's commit shows up as a revision conflict: the message is
 * reloaded and the transition applied again (re-validating). A fenced commit ends the Turn.
 */
export class SessionWriter {
  readonly #deps: WriterDeps;
  readonly #open = new Map<string, AssistantMessage>();
  #tail: Promise<unknown> = Promise.resolve();
  #nextSequence: number | undefined;
  #inFlight = 0;

  constructor(deps: WriterDeps) {
    this.#deps = deps;
  }

  get session_id(): string {
    return this.#deps.session_id;
  }

  /** True when no write is queued or running. */
  get isIdle(): boolean {
    return this.#inFlight === 0;
  }

  /** Runs `work` after every write queued before it. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight += 1;
    const run = this.#tail.then(work, work);
    const settled = () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#deps.onIdle?.();
    };
    this.#tail = run.then(settled, settled);
    return run;
  }

  /**
   * Applies a pure transition to an assistant message as one revision; null when it changed nothing.
   * `stored`: a copy the caller just read from the store, used as this chain's read of the message
   * when there is no in-memory copy (the caller overlapped that read with other work).
   */
  updateAssistant<T>(
    message_id: string,
    transition: AssistantTransitionFn<T>,
    options: {
      epoch?: number;
      /** This revision claims the Turn (`SessionCommit.claim`); the result carries the new epoch. */
      claim?: SessionCommit["claim"];
      stored?: AssistantMessage;
      /**
       * A session change committed with this revision, after it: its `mutation` is logged after the
       * message's (`preceding_mutation` of the commit), e.g. the Turn's `finish` with the close.
       * `onCommitted` runs after the commit, before subscribers see either mutation.
       */
      followed_by?: Pick<SessionCommit, "settle_commands" | "ends_turn"> & {
        mutation: UnsequencedMutation;
        onCommitted?: () => void;
      };
    } = {},
  ): Promise<{ message: AssistantMessage; value: T | undefined; epoch?: number } | null> {
    return this.serial(async () => {
      const cachedCopy = this.#open.get(message_id);
      let current = cachedCopy ?? options.stored ?? (await this.#load(message_id));
      let fresh = cachedCopy === undefined;
      for (let attempt = 0; ; attempt += 1) {
        const now = this.#deps.clock.now();
        let result: AssistantTransition<T> | null;
        try {
          result = transition(current, now);
        } catch (error) {
          // Our copy may predate another process's commit (e.g. the Interaction it created): decide
          // again on the stored state before refusing.
          if (fresh) throw error;
          this.#open.delete(message_id);
          current = await this.#load(message_id);
          fresh = true;
          continue;
        }
        if (!result) {
          if (fresh) return null;
          this.#open.delete(message_id);
          current = await this.#load(message_id);
          fresh = true;
          continue;
        }
        const next: AssistantMessage = { ...result.message, revision: current.revision + 1, updated_at: now };
        const own = result.publish === false ? undefined : this.#mutationFor(next, result.mutation, now);
        const followed_by = options.followed_by;
        try {
          const committed = await this.#commitAndPublish(
            {
              session_id: this.session_id,
              ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
              ...(options.claim === undefined ? {} : { claim: options.claim }),
              message: { snapshot: next, expected_revision: current.revision },
              ...this.#interactionRows(next, result),
              ...(followed_by === undefined
                ? own === undefined
                  ? {}
                  : { mutation: own }
                : {
                    mutation: followed_by.mutation,
                    ...(own === undefined ? {} : { preceding_mutation: own }),
                    ...(followed_by.settle_commands === undefined
                      ? {}
                      : { settle_commands: followed_by.settle_commands }),
                    ...(followed_by.ends_turn === undefined ? {} : { ends_turn: followed_by.ends_turn }),
                  }),
            },
            () => {
              this.#remember(next);
              followed_by?.onCommitted?.();
            },
          );
          return {
            message: next,
            value: result.value,
            ...(committed.epoch === undefined ? {} : { epoch: committed.epoch }),
          };
        } catch (error) {
          if (
            !(error instanceof StoreConflictError) ||
            error.kind !== "revision" ||
            attempt >= MAX_CONFLICT_RETRIES
          ) {
            throw this.#translate(error);
          }
          this.#open.delete(message_id);
          current = await this.#load(message_id);
          fresh = true;
        }
      }
    });
  }

  /**
   * Appends a new message at the next free `sequence` (revision 1). `publish: false` commits it with
   * no mutation (it takes no event id: `set(..., { publish_mutation: false })`).
   */
  appendMessage<M extends SessionMessage>(
    build: (sequence: number, now: number) => M,
    options: {
      epoch?: number;
      publish?: boolean;
      settle_commands?: SessionCommit["settle_commands"];
      /** Logged just before the message's own mutation, in the same commit (e.g. the Turn's `start`). */
      preceding_mutation?: UnsequencedMutation;
      /** A prompt's start of its Turn, committed with its user message (see `SessionCommit`). */
      start?: Pick<SessionCommit, "claim" | "starts_turn" | "session_patch">;
      /** Told what the store returned (e.g. the epoch a claim advanced to), before subscribers hear of it. */
      onCommitted?: (result: CommitResult) => void;
    } = {},
  ): Promise<M> {
    return this.serial(async () => {
      for (let attempt = 0; ; attempt += 1) {
        this.#nextSequence ??= (await this.#deps.store.lastSequence(this.session_id)) + 1;
        const now = this.#deps.clock.now();
        const message = build(this.#nextSequence, now);
        try {
          await this.#commitAndPublish(
            {
              session_id: this.session_id,
              ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
              ...(options.settle_commands === undefined ? {} : { settle_commands: options.settle_commands }),
              ...options.start,
              message: { snapshot: message, expected_revision: 0 },
              ...(options.publish === false ? {} : { mutation: this.#messageMutation(message, now) }),
              ...(options.publish === false || options.preceding_mutation === undefined
                ? {}
                : { preceding_mutation: options.preceding_mutation }),
            },
            (result) => {
              this.#nextSequence = message.sequence + 1;
              if (message.type === "assistant") this.#remember(message);
              options.onCommitted?.(result);
            },
          );
          return message;
        } catch (error) {
          if (
            !(error instanceof StoreConflictError) ||
            error.kind !== "sequence" ||
            attempt >= MAX_CONFLICT_RETRIES
          ) {
            throw this.#translate(error);
          }
          this.#nextSequence = undefined;
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
  }

  /** The in-memory copy of an open assistant message (after this process's last write). */
  cached(message_id: string): AssistantMessage | undefined {
    return this.#open.get(message_id);
  }

  newMutationBase(now: number) {
    return { mutation_id: this.#deps.ids.mutation(), session_id: this.session_id, created_at: now };
  }

  async #commitAndPublish(
    commit: SessionCommit,
    applyLocally: (result: CommitResult) => void,
  ): Promise<CommitResult> {
    const turn = turnProgressOf(commit);
    const result = await this.#deps.store.commit(turn ? { ...commit, turn } : commit);
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

  #translate(error: unknown): unknown {
    if (error instanceof StoreConflictError && error.kind === "fenced")
      return new TurnFencedError(error.message);
    return error;
  }

  #interactionRows(
    message: AssistantMessage,
    result: AssistantTransition<unknown>,
  ): Pick<SessionCommit, "interactions" | "interaction_events"> {
    const changes = result.interaction_changes ?? [];
    if (changes.length === 0) return {};
    const interactions: InteractionRecord[] = [];
    const interaction_events: Omit<InteractionEvent, "event_id">[] = [];
    for (const change of changes) {
      const part = message.parts.find(
        (item) => item.type === "tool" && item.tool_call_id === change.tool_call_id,
      );
      const interaction = part?.type === "tool" ? part.interactions?.[change.ordinal] : undefined;
      if (part?.type !== "tool" || !interaction) {
        throw new Error(`Changed Interaction not found: ${change.tool_call_id}#${change.ordinal}`);
      }
      interactions.push({
        session_id: this.session_id,
        message_id: message.message_id,
        tool_call_id: part.tool_call_id,
        tool_name: part.tool_name,
        ordinal: change.ordinal,
        interaction,
      });
      interaction_events.push({ kind: change.kind, session_id: this.session_id, interaction });
    }
    return result.publish === false ? { interactions } : { interactions, interaction_events };
  }

  #mutationFor(message: AssistantMessage, spec: MutationSpec, now: number): UnsequencedMutation {
    const base = { ...this.newMutationBase(now), message_id: message.message_id, revision: message.revision };
    const turn = message.turn_id === undefined ? {} : { turn_id: message.turn_id };
    switch (spec.variant) {
      case "message":
        return this.#messageMutation(message, now);
      case "part": {
        const part = message.parts.find((item) => item.part_id === spec.part_id);
        if (!part) throw new Error(`Changed part not found: ${spec.part_id}`);
        return { ...base, ...turn, variant: "part", type: part.type, part_id: part.part_id, part };
      }
      case "delta":
        return {
          ...base,
          ...turn,
          variant: "delta",
          type: spec.type,
          part_id: spec.part_id,
          delta: spec.delta,
        };
    }
  }

  #messageMutation(message: SessionMessage, now: number): UnsequencedMutation {
    return {
      ...this.newMutationBase(now),
      variant: "message",
      type: message.type,
      message_id: message.message_id,
      ...(message.turn_id === undefined ? {} : { turn_id: message.turn_id }),
      sequence: message.sequence,
      revision: message.revision,
      message,
    };
  }
}
