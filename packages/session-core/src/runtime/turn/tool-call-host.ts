import type { WorkspaceRef } from "../../tools/define-agent-tool.js";
import type { RuntimeContext } from "../runtime-context.js";
import type { AgentDefinition } from "../session/session-facade.js";
import type { SessionWriter } from "../session/session-writer.js";

/**
 * What one tool call needs from its session's host in this process. The Turn's host
 * (`TurnHost`) extends it; tool execution depends on this alone, so it does not depend on the
 * Turn runner that calls it.
 */
export interface ToolCallHost {
  readonly session_id: string;
  readonly writer: SessionWriter;
  readonly context: RuntimeContext;
  readonly agent: AgentDefinition;
  readonly workspace: WorkspaceRef | undefined;
}
