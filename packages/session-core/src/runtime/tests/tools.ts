import { z } from "zod";
import type { ApprovalDecision } from "../../schema/approval.js";
import type { InteractionRequestInput, InteractionResult } from "../../schema/interaction.js";
import type { JsonValue } from "../../schema/json.js";
import {
  define_agent_tool,
  type InteractionHandle,
  type ToolCallContext,
  type ToolSideEffects,
} from "../../tools/define-agent-tool.js";

const commandToolInputSchema = z.strictObject({ command: z.string().min(1) });

/** A tool that asks about a command like `shell` does (`operation: "exec"`) and records what ran. */
export function createCommandTool(name = "shell") {
  const effects: string[] = [];
  const decisions: ApprovalDecision[] = [];
  const tool = define_agent_tool({
    description: "Run a shell command.",
    input_schema: commandToolInputSchema,
    side_effects: "after_asking",
    async execute(input, context): Promise<JsonValue> {
      const decision = await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: name,
        payload: { operation: "exec", command: input.command, validated_input: { command: input.command } },
      });
      decisions.push(decision);
      if (!decision.approved) return { success: false, error: "denied" };
      const approved = commandToolInputSchema.parse(decision.input ?? input);
      effects.push(approved.command);
      return { ran: approved.command };
    },
  });
  return { tool, effects, decisions };
}

/**
 * A tool whose `execute` waits until the test lets it finish; `calls` counts its runs. It declares
 * side effects (the default) unless told it has none.
 */
export function createBlockingTool(options: { side_effects?: ToolSideEffects } = {}) {
  let calls = 0;
  let started!: () => void;
  let finish!: (value: string) => void;
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  const finished = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const tool = define_agent_tool({
    description: "Runs until released.",
    input_schema: z.object({}),
    ...(options.side_effects === undefined ? {} : { side_effects: options.side_effects }),
    async execute() {
      calls += 1;
      started();
      return { result: await finished };
    },
  });
  return {
    tool,
    started: startedPromise,
    finish,
    calls: () => calls,
  };
}

/**
 * A tool that makes `count` generic requests through `context.interactions.request` (all created
 * before any is awaited), then returns every result.
 */
export function createRequestTool(
  build: (context: ToolCallContext, index: number) => InteractionRequestInput,
  count = 1,
) {
  const handles: InteractionHandle[] = [];
  const results: InteractionResult[] = [];
  const tool = define_agent_tool({
    description: "Asks through the generic primitive.",
    input_schema: z.object({}),
    side_effects: false,
    async execute(_input, context): Promise<JsonValue> {
      const own: InteractionHandle[] = [];
      for (let index = 0; index < count; index += 1) {
        const handle = await context.interactions.request(build(context, index));
        handles.push(handle);
        own.push(handle);
      }
      const settled = await Promise.all(own.map((handle) => handle.result));
      results.push(...settled);
      return settled as unknown as JsonValue;
    },
  });
  return { tool, handles, results };
}

export { createApprovalTool } from "../../testing/approval-tool.js";
