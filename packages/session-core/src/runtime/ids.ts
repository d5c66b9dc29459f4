import type { IdSource } from "../ports/clock.js";

// The default id source sits beside the default clock (ports/clock.ts), where the tools reach it too.
export { createRandomIdSource } from "../ports/clock.js";

const TURN_ID_RANDOM_CHARS = 6;

/** Every id the runtime mints, in one place, so each says what it is. */
export class RuntimeIds {
  constructor(private readonly source: IdSource) {}

  session(): string {
    return `session_${this.source.next()}`;
  }
  interaction(): string {
    return `interaction:${this.source.next()}`;
  }
  /**
   * `turn:<session_id>:<ms>:<6 characters>`, the reference's format (nanoid6): the time and the
   * session already make it unique but for the same millisecond, and a Turn's id is written with
   * most rows of its Turn (the Turn row and its key, messages, Interactions, the session's
   * `active_turn_id`), so its length is paid many times a Turn.
   */
  turn(session_id: string, now: number): string {
    return `turn:${session_id}:${now}:${this.source.next().slice(0, TURN_ID_RANDOM_CHARS)}`;
  }
  userMessage(session_id: string): string {
    return `user:${session_id}:${this.source.next()}`;
  }
  assistantMessage(session_id: string): string {
    return `assistant:${session_id}:${this.source.next()}`;
  }
  errorMessage(session_id: string): string {
    return `error:${session_id}:${this.source.next()}`;
  }
  configAction(session_id: string, now: number): string {
    return `session-config:${session_id}:${now}:${this.source.next()}`;
  }
  command(): string {
    return `command:${this.source.next()}`;
  }
  mutation(): string {
    return `mutation:${this.source.next()}`;
  }
  part(kind: "text" | "reasoning" | "step-start" | "user-text" | "file" | "source"): string {
    return `${kind}:${this.source.next()}`;
  }
}

/** A tool part's id is derived from the provider's call id and never changes. */
export function toolPartId(tool_call_id: string): string {
  return `tool:${tool_call_id}`;
}
