import type { SessionCommit } from "../../ports/session-store.js";
import type { ErrorMessage, UserMessage } from "../../schema/messages.js";
import type { TurnMutation, UnsequencedMutation } from "../../schema/mutation.js";
import type { RuntimeIds } from "../ids.js";
import type { SessionWriter } from "../session/session-writer.js";
import type { AssistantTransitionFn } from "../transitions/transition.js";

type TurnFields = Pick<TurnMutation, "type" | "status" | "text" | "error">;

/** A Turn's user message (its prompt, or a steer), revision 1 at `sequence`. */
export function userMessageOf(
  input: {
    ids: RuntimeIds;
    session_id: string;
    turn_id: string;
    query: string;
    input_type: "prompt" | "steer";
  },
  sequence: number,
  now: number,
): UserMessage {
  const { ids, session_id, turn_id, query, input_type } = input;
  return {
    message_id: ids.userMessage(session_id),
    session_id,
    turn_id,
    type: "user",
    input_type,
    sequence,
    revision: 1,
    created_at: now,
    updated_at: now,
    parts: [{ part_id: ids.part("user-text"), type: "text", text: query, state: "done" }],
  };
}

/**
 * The messages and mutations a Turn writes besides its assistant segments: its user and steer
 * messages, its single `error` message, and its `turn` start/finish mutations. Every write carries
 * the Turn's lease epoch.
 */
export class TurnRecords {
  readonly #writer: SessionWriter;
  readonly #ids: RuntimeIds;
  readonly #now: () => number;
  readonly #turn_id: string;
  readonly #epoch: number;

  constructor(options: {
    writer: SessionWriter;
    ids: RuntimeIds;
    now: () => number;
    turn_id: string;
    epoch: number;
  }) {
    this.#writer = options.writer;
    this.#ids = options.ids;
    this.#now = options.now;
    this.#turn_id = options.turn_id;
    this.#epoch = options.epoch;
  }

  /**
   * `command_id`: the queued prompt this message applies, settled in the same commit. `starts_turn`:
   * the Turn's `start` is logged just before the message, in the same commit.
   */
  async userMessage(
    query: string,
    input_type: "prompt" | "steer",
    command_id?: string,
    options: { starts_turn?: boolean } = {},
  ): Promise<void> {
    const session_id = this.#writer.session_id;
    const input = { ids: this.#ids, session_id, turn_id: this.#turn_id, query, input_type };
    await this.#writer.appendMessage((sequence, now) => userMessageOf(input, sequence, now), {
      epoch: this.#epoch,
      ...(command_id === undefined ? {} : { settle_commands: [{ command_id, status: "applied" }] }),
      ...(options.starts_turn
        ? { preceding_mutation: this.#turnMutationOf({ type: "start", status: "running" }) }
        : {}),
    });
  }

  /** The single user-visible error of a failed Turn (docs/behaviour.md#turn-and-step). */
  async errorMessage(code: string, text: string): Promise<void> {
    const session_id = this.#writer.session_id;
    await this.#writer.appendMessage(
      (sequence, now): ErrorMessage => ({
        message_id: this.#ids.errorMessage(session_id),
        session_id,
        turn_id: this.#turn_id,
        type: "error",
        scope: "turn",
        code,
        message: text,
        recoverable: true,
        sequence,
        revision: 1,
        created_at: now,
        updated_at: now,
      }),
      { epoch: this.#epoch },
    );
  }

  /** `onCommitted` runs after the commit and before subscribers see the mutation. */
  async turnMutation(
    fields: TurnFields,
    onCommitted?: () => void,
    commands: Pick<SessionCommit, "settle_commands" | "ends_turn"> = {},
  ): Promise<void> {
    await this.#writer.commitSessionChange(
      { epoch: this.#epoch, ...commands, mutation: this.#turnMutationOf(fields) },
      onCommitted,
    );
  }

  /**
   * Closes the segment's open message with `close` and commits the Turn's `finish` in the same
   * revision (the message's mutation, then the `turn` one). When `close` changes nothing, the finish
   * is committed alone. `onCommitted` runs after the commit and before subscribers see the finish.
   */
  async closeAndFinish(
    message_id: string,
    close: AssistantTransitionFn,
    fields: TurnFields,
    onCommitted: () => void,
    commands: Pick<SessionCommit, "settle_commands" | "ends_turn">,
  ): Promise<void> {
    const closed = await this.#writer.updateAssistant(message_id, close, {
      epoch: this.#epoch,
      followed_by: { ...commands, mutation: this.#turnMutationOf(fields), onCommitted },
    });
    if (!closed) await this.turnMutation(fields, onCommitted, commands);
  }

  #turnMutationOf(fields: TurnFields): UnsequencedMutation {
    const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    return {
      ...this.#writer.newMutationBase(this.#now()),
      variant: "turn",
      turn_id: this.#turn_id,
      type: fields.type,
      status: fields.status,
      ...defined,
    };
  }
}
