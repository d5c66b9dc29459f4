import type { ApiServices, StartApiServerOptions } from "@parley/api";
import type { AgentDefinition } from "@parley/session-core";
import { define_agent_tool } from "@parley/session-core";
import { createScriptedModel, type ScriptedCall, type ScriptItem } from "@parley/session-core/testing";
import { z } from "zod";
import { now, WAIT_MS, within } from "./stats.js";

export const BENCH_AGENT_ID = "bench";

/** When a bench tool call asked for approval and when its `execute` continued after the answer. */
export interface ToolTimes {
  requested_at: number;
  resumed_at?: number;
}

/**
 * Timestamps taken inside the tool, keyed by the prompt's `key`; `waitResumed(key)` resolves when
 * that tool call's `execute` continued after its approval.
 */
export class ToolProbe {
  readonly times = new Map<string, ToolTimes>();
  readonly #resumed = new Map<string, () => void>();
  readonly #requested = new Map<string, () => void>();

  /**
   * The first request of a key is the one a person sees; a Turn resumed by replay runs the tool
   * again, which asks again (attaching to the same Interaction) and must not move that time.
   */
  markRequested(key: string): void {
    if (!this.times.has(key)) this.times.set(key, { requested_at: now() });
    this.#requested.get(key)?.();
  }

  markResumed(key: string): void {
    const entry = this.times.get(key);
    if (entry) entry.resumed_at = now();
    this.#resumed.get(key)?.();
  }

  waitRequested(key: string): Promise<void> {
    if (this.times.has(key)) return Promise.resolve();
    return within(new Promise((resolve) => this.#requested.set(key, resolve)), WAIT_MS, `tool ${key} to ask`);
  }

  waitResumed(key: string): Promise<void> {
    if (this.times.get(key)?.resumed_at !== undefined) return Promise.resolve();
    return within(
      new Promise((resolve) => this.#resumed.set(key, resolve)),
      WAIT_MS,
      `tool ${key} to resume`,
    );
  }

  forget(key: string): void {
    this.times.delete(key);
    this.#resumed.delete(key);
    this.#requested.delete(key);
  }
}

/**
 * What the zero-latency bench model does with a prompt (its last user text):
 * - `approve <key>`: calls `bench_approve { key }` (which asks for approval), then answers "done";
 * - `stream <characters> <chunks>`: streams that much text in that many deltas, no tool.
 */
function scriptFor(call: ScriptedCall): ScriptItem[] {
  const lastMessage = call.prompt[call.prompt.length - 1];
  if (lastMessage?.role === "tool") return [{ text: "done" }];
  const words = (call.last_user_text ?? "").trim().split(/\s+/);
  if (words[0] === "approve" && words[1]) {
    return [
      {
        tool_call: { id: `call_${words[1]}_${call.index}`, name: "bench_approve", input: { key: words[1] } },
      },
    ];
  }
  if (words[0] === "stream") {
    const characters = Number(words[1] ?? 1000);
    const chunkCount = Math.max(1, Number(words[2] ?? 100));
    const chunkSize = Math.ceil(characters / chunkCount);
    const chunks: string[] = [];
    for (let offset = 0; offset < characters; offset += chunkSize) {
      chunks.push(
        "lorem ipsum dolor sit amet "
          .repeat(Math.ceil(chunkSize / 27))
          .slice(0, Math.min(chunkSize, characters - offset)),
      );
    }
    return [{ text: chunks.join(""), chunks }];
  }
  return [{ text: `unknown bench prompt: ${call.last_user_text ?? ""}` }];
}

/** The bench's agent: a scripted model that answers at once and one tool that asks for approval. */
export function createBenchAgent(probe: ToolProbe): AgentDefinition {
  const model = createScriptedModel((call) => {
    // The scripted model records every call; the bench runs many thousands and keeps none.
    model.calls.length = 0;
    return scriptFor(call);
  });
  return {
    agent_id: BENCH_AGENT_ID,
    model,
    tools: {
      bench_approve: define_agent_tool({
        description: "Asks for approval, then records that it continued.",
        input_schema: z.object({ key: z.string() }),
        // It acts only after its approval (the cycle measured): no checkpoint before `execute`.
        side_effects: "after_asking",
        execute: async (input, context) => {
          probe.markRequested(input.key);
          const decision = await context.interactions.approval.request({
            turn_id: context.turn_id,
            tool_call_id: context.tool_call_id,
            tool_name: context.tool_name,
            payload: { operation: "tool", validated_input: input },
          });
          probe.markResumed(input.key);
          return decision.approved ? "approved" : "denied";
        },
      }),
    },
  };
}

/** The bench agent has one scripted model and offers no choice (`model.list` is empty). */
export const BENCH_MODELS: ApiServices["models"] = { list: () => [] };

/**
 * Every simulated user of a bench signs in with the one bench token, so the per-user limits that
 * protect a shared server would measure themselves instead of the server.
 */
export const BENCH_API_LIMITS: StartApiServerOptions["limits"] = {
  connections_per_user: 1_000_000,
  rate_requests: 0,
};
