import type { CancelReason } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { RuntimeIds } from "../ids.js";
import type { SessionWriter } from "../session/session-writer.js";
import { closeAssistantMessage, createAssistantMessage } from "../transitions/assistant-transitions.js";
import type { AssistantTransitionFn } from "../transitions/transition.js";

/**
 * The Turn's open assistant message (its current segment): opened live by the first model output of
 * a segment (DESIGN §10.6: it is committed at its first checkpoint), changed live by the stream,
 * checkpointed through the Turn's fenced epoch, closed when the Turn finishes or a steer starts a
 * new segment. A close (stop, failure) commits whatever the stream made of it so far.
 */
export class OpenSegment {
  readonly #writer: SessionWriter;
  readonly #ids: RuntimeIds;
  readonly #session_id: string;
  readonly #turn_id: string;
  readonly #epoch: number;
  #messageId: string | undefined;
  #opening: Promise<string> | undefined;
  #segmentIndex = 0;

  constructor(input: {
    writer: SessionWriter;
    ids: RuntimeIds;
    session_id: string;
    turn_id: string;
    epoch: number;
  }) {
    this.#writer = input.writer;
    this.#ids = input.ids;
    this.#session_id = input.session_id;
    this.#turn_id = input.turn_id;
    this.#epoch = input.epoch;
  }

  get turn_id(): string {
    return this.#turn_id;
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** The open message's id; undefined before the segment's first model output. */
  get messageId(): string | undefined {
    return this.#messageId;
  }

  /** The Turn goes on from `message`, found open (a resume, or a stop of an orphan). */
  continueFrom(message: AssistantMessage): void {
    this.#messageId = message.message_id;
    this.#segmentIndex = message.segment_index;
  }

  /** The message closed (a steer, or a finish refused): the next model output opens a new one. */
  endSegment(): void {
    this.#messageId = undefined;
  }

  /** The open message's id, opening it (once, however many callers ask meanwhile) if needed. */
  async ensureMessage(): Promise<string> {
    if (this.#messageId) return this.#messageId;
    this.#opening ??= (async () => {
      this.#segmentIndex += 1;
      const message = await this.#writer.beginLive((sequence, now) =>
        createAssistantMessage({
          message_id: this.#ids.assistantMessage(this.#session_id),
          session_id: this.#session_id,
          turn_id: this.#turn_id,
          sequence,
          segment_index: this.#segmentIndex,
          step_part_id: this.#ids.part("step-start"),
          now,
        }),
      );
      this.#messageId = message.message_id;
      return message.message_id;
    })();
    try {
      return await this.#opening;
    } finally {
      this.#opening = undefined;
    }
  }

  /**
   * The open message's id once an opening in flight settled (undefined when none was opened): what a
   * stop or failure closes.
   */
  async settled(): Promise<string | undefined> {
    return this.#messageId ?? (await this.#opening?.catch(() => undefined));
  }

  /** A live change of the open message (DESIGN §10.6): published, committed by the next checkpoint. */
  async live(message_id: string, transition: AssistantTransitionFn): Promise<void> {
    await this.#writer.applyLive(message_id, transition);
  }

  /** The message's live state as one revision (the stream ran too long without a checkpoint). */
  async checkpointLive(message_id: string): Promise<void> {
    await this.#writer.checkpointLive(message_id, { epoch: this.#epoch });
  }

  async update(message_id: string, transition: AssistantTransitionFn): Promise<AssistantMessage | undefined> {
    const result = await this.#writer.updateAssistant(message_id, transition, { epoch: this.#epoch });
    return result?.message;
  }

  /** Closes the open message (if any) with `status`; its unfinished tools fail with `tool_error`. */
  async close(
    status: "completed" | "stopped" | "failed",
    tool_error: string,
    cancel_reason: CancelReason,
  ): Promise<void> {
    if (!this.#messageId) return;
    await this.update(this.#messageId, (current, now) =>
      closeAssistantMessage(current, { status, tool_error, cancel_reason, now }),
    );
  }
}
