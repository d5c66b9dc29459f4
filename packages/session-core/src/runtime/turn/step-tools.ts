import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { ToolAllowance } from "../../schema/tool-allowance.js";
import type { SessionSettings } from "../session/session-settings.js";
import type { OpenSegment } from "./open-segment.js";
import type { ToolCallHost } from "./tool-call-host.js";
import { runToolCall } from "./tool-execution.js";

export interface StepToolsInput {
  host: ToolCallHost & { readonly settings: SessionSettings };
  /** The Turn: owner of the tools' waiters. */
  owner: object;
  turn_id: string;
  epoch: number;
  segment: OpenSegment;
  abort_signal: AbortSignal;
  /** `work`, unless the Turn ends first: a stopped Turn does not wait for its tools. */
  raceEnded<T>(work: Promise<T>): Promise<T>;
  /** A tool call ended (the Turn may park now). */
  onToolEnded(): void;
}

/**
 * The tools of the Turn's current Step: the approval settings the Step captured at its checkpoint
 * (G57), and the tool calls executing now (what the park check looks at).
 */
export class StepTools {
  readonly #input: StepToolsInput;
  /** Tool calls of this Turn executing now. */
  readonly running = new Set<string>();
  #mode: ApprovalMode;
  #allowances: ToolAllowance[];

  constructor(input: StepToolsInput) {
    this.#input = input;
    this.#mode = input.host.settings.approvalMode;
    this.#allowances = input.host.settings.toolAllowances;
  }

  /** After a checkpoint: the Step's tools use the settings effective now. */
  captureSettings(): void {
    this.#mode = this.#input.host.settings.approvalMode;
    this.#allowances = this.#input.host.settings.toolAllowances;
  }

  /** The Step's tools run concurrently; the Turn does not wait for them once it is stopped. */
  async execute(message_id: string, tool_call_ids: string[]): Promise<void> {
    if (tool_call_ids.length === 0) return;
    const { host, owner, turn_id, epoch, segment, abort_signal } = this.#input;
    await this.#input.raceEnded(
      Promise.all(
        tool_call_ids.map((tool_call_id) =>
          this.#tracked(tool_call_id, () =>
            runToolCall({
              host,
              owner,
              turn_id,
              epoch,
              message_id,
              tool_call_id,
              abort_signal,
              approvalMode: () => this.#mode,
              toolAllowances: () => this.#allowances,
              hasEnded: () => abort_signal.aborted,
              update: (id, transition) => segment.update(id, transition),
            }),
          ),
        ),
      ),
    );
  }

  async #tracked(tool_call_id: string, run: () => Promise<void>): Promise<void> {
    this.running.add(tool_call_id);
    try {
      await run();
    } finally {
      this.running.delete(tool_call_id);
      this.#input.onToolEnded();
    }
  }
}
