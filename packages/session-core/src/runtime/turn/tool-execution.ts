import type { ApprovalMode } from "../../schema/approval-mode.js";
import type { AssistantMessage } from "../../schema/messages.js";
import { storableText, toStorableJson } from "../../schema/storable-json.js";
import type { ToolAllowance } from "../../schema/tool-allowance.js";
import type { AnyAgentTool, ToolCallContext } from "../../tools/define-agent-tool.js";
import { RuntimeInteractionPort } from "../interactions/interaction-port.js";
import { TurnFencedError } from "../session/session-writer.js";
import { markToolAutoApproved } from "../transitions/interaction-transitions.js";
import { completeTool, failTool, startTool } from "../transitions/tool-part-transitions.js";
import { type AssistantTransitionFn, findToolIndex } from "../transitions/transition.js";
import { errorText } from "./step-stream-consumer.js";
import type { ToolCallHost } from "./tool-call-host.js";

export interface ToolCallRun {
  host: ToolCallHost;
  /** The Turn: owner of the tool's waiters. */
  owner: object;
  turn_id: string;
  epoch: number;
  message_id: string;
  tool_call_id: string;
  abort_signal: AbortSignal;
  /** The approval mode the Step captured (G57). */
  approvalMode(): ApprovalMode;
  /** The tools allowed for the session, as the Step captured them (G57). */
  toolAllowances(): ToolAllowance[];
  /** True once the Turn was stopped or abandoned: results are dropped, nothing is written. */
  hasEnded(): boolean;
  update(message_id: string, transition: AssistantTransitionFn): Promise<AssistantMessage | undefined>;
}

/** Checkpoint 4 before `execute`, unless the tool declared it acts only after asking, or never. */
function startsWithCheckpoint(tool: AnyAgentTool): boolean {
  return (tool.side_effects ?? true) === true;
}

/**
 * Runs one ready (or resumed) tool call: input re-validated by the tool's zod schema, `execute` with
 * the tool context, then `completed` with its JSON output or `failed` with its error. A tool that
 * may act anywhere in `execute` (`side_effects` true, the default) is committed `running` first
 * (checkpoint 4), so a crash from there on fails it as interrupted instead of running it again. The
 * tool's interaction port attaches its k-th request to the tool part's `interactions[k]` when one
 * exists (durable resume), so a re-run never asks twice.
 */
export async function runToolCall(run: ToolCallRun): Promise<void> {
  const { host, message_id, tool_call_id } = run;
  const { agent, context, session_id, writer, workspace } = host;
  const message = writer.cached(message_id) ?? (await context.store.getMessage(session_id, message_id));
  const part =
    message?.type === "assistant" ? message.parts[findToolIndex(message, tool_call_id)] : undefined;
  if (part?.type !== "tool") return;
  try {
    const tool = agent.tools[part.tool_name];
    if (!tool) throw new Error(`Unknown tool: ${part.tool_name}`);
    const input = tool.input_schema.parse(part.input);
    const hasTool = (id: string) => {
      const cached = writer.cached(message_id);
      return cached !== undefined && findToolIndex(cached, id) >= 0;
    };
    const interactions = new RuntimeInteractionPort({
      session_id,
      writer,
      store: context.store,
      waiters: context.waiters,
      ids: context.ids,
      clock: context.clock,
      owner: run.owner,
      locateTool: async (id) => (id === tool_call_id || hasTool(id) ? message_id : undefined),
      approvalMode: run.approvalMode,
      toolAllowances: run.toolAllowances,
      epoch: run.epoch,
      countsOrdinals: true,
      markRunning: async (id, how) => {
        if (id !== tool_call_id) return;
        await run.update(message_id, (current) => {
          const marked = markToolAutoApproved(current, id, how);
          // Already `running` (checkpoint 4 before `execute`): only the mark is new.
          return startTool(marked?.message ?? current, id) ?? marked;
        });
      },
    });
    const toolContext: ToolCallContext = {
      session_id,
      turn_id: run.turn_id,
      tool_call_id,
      tool_name: part.tool_name,
      interactions,
      abort_signal: run.abort_signal,
      workspace,
    };
    if (startsWithCheckpoint(tool)) {
      await run.update(message_id, (current) => startTool(current, tool_call_id));
      if (run.hasEnded()) return;
    }
    const output = await tool.execute(input, toolContext);
    if (run.hasEnded()) return;
    const json = output === undefined ? undefined : toStorableJson(output);
    await run.update(message_id, (current) => completeTool(current, tool_call_id, json));
  } catch (error) {
    if (run.hasEnded()) return;
    if (error instanceof TurnFencedError) throw error;
    await run.update(message_id, (current) =>
      failTool(current, tool_call_id, storableText(errorText(error))),
    );
  }
}
