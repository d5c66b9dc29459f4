import type { ApprovalMode } from "../schema/approval-mode.js";
import type { TurnHandle } from "./session-facade.js";

/** A `set()` waiting for the next Step checkpoint (§A.3, D-3). */
export interface ConfigCommand {
  kind: "config";
  approval_mode: ApprovalMode;
  persist_action: boolean;
  publish_mutation: boolean;
}

/** A `prompt()` waiting to be persisted: as the start of a Turn or as a steer of the running one. */
export interface QueuedPrompt {
  kind: "prompt";
  query: string;
  /** Resolves the caller's `prompt()` once the input belongs to a Turn. */
  assign(handle: TurnHandle): void;
  /** Settles the caller's `prompt()` with an error (the input was never persisted). */
  reject(error: unknown): void;
}

export type QueueItem = ConfigCommand | QueuedPrompt;

/** The session's single FIFO of prompts and config commands. In-process only, never persisted. */
export class SessionQueue {
  #items: QueueItem[] = [];

  push(item: QueueItem): void {
    this.#items.push(item);
  }

  /** Everything queued, in order (a Step checkpoint drains the whole queue). */
  drain(): QueueItem[] {
    const items = this.#items;
    this.#items = [];
    return items;
  }

  /** The config commands ahead of the first prompt, and that prompt; the rest stays queued. */
  takeNextPrompt(): { configs: ConfigCommand[]; prompt: QueuedPrompt } | null {
    const index = this.#items.findIndex((item) => item.kind === "prompt");
    if (index < 0) return null;
    const head = this.#items.slice(0, index);
    const prompt = this.#items[index] as QueuedPrompt;
    this.#items = this.#items.slice(index + 1);
    return { configs: head.filter((item): item is ConfigCommand => item.kind === "config"), prompt };
  }

  isEmpty(): boolean {
    return this.#items.length === 0;
  }

  hasConfig(): boolean {
    return this.#items.some((item) => item.kind === "config");
  }

  hasPrompt(): boolean {
    return this.#items.some((item) => item.kind === "prompt");
  }

  /** `stop()`: queued prompts are cancelled, config commands stay (they have no cancel behaviour). */
  removePrompts(): QueuedPrompt[] {
    const prompts = this.#items.filter((item): item is QueuedPrompt => item.kind === "prompt");
    this.#items = this.#items.filter((item) => item.kind !== "prompt");
    return prompts;
  }
}
