import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type {
  ApprovalDecision,
  ApprovalRequestInput,
  JsonValue,
  ToolCallContext,
} from "@parley/session-core";

/** A tool context whose approval port records every request and answers with a fixed decision. */
export interface RecordingToolContext {
  context: ToolCallContext;
  approvals: ApprovalRequestInput[];
  abort: AbortController;
}

export function createRecordingToolContext(options: {
  tool_name: string;
  root: string | undefined;
  approve?: boolean;
  /** The approver's edit of the request's `validated_input`, returned as the decision's `input`. */
  edited_input?: JsonValue;
  /** Runs while the approval is "pending": lets a test change the workspace meanwhile. */
  whilePending?: () => Promise<void>;
}): RecordingToolContext {
  const approvals: ApprovalRequestInput[] = [];
  const abort = new AbortController();
  const approve = options.approve ?? true;
  const context: ToolCallContext = {
    session_id: "session:test",
    turn_id: "turn:test",
    tool_call_id: "call_test",
    tool_name: options.tool_name,
    abort_signal: abort.signal,
    workspace: options.root === undefined ? undefined : { workspace_id: null, root: options.root },
    interactions: {
      request: () => Promise.reject(new Error("unexpected interactions.request in a workspace tool")),
      approval: {
        request: async (asked): Promise<ApprovalDecision> => {
          approvals.push(asked);
          await options.whilePending?.();
          if (!approve) return { approved: false, auto_approved: false, approval_id: "interaction:test" };
          // As the runtime's port: the edit, else the validated input asked about.
          const input = options.edited_input ?? asked.payload.validated_input;
          return {
            approved: true,
            auto_approved: false,
            approval_id: "interaction:test",
            ...(input === undefined ? {} : { input }),
          };
        },
      },
    },
  };
  return { context, approvals, abort };
}

/** A fresh real temp directory holding `workspace/` and, beside it, `outside/` (for escape attempts). */
export async function createTempWorkspace(): Promise<{ base: string; root: string; outside: string }> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-tools-")));
  return { base, root: path.join(base, "workspace"), outside: path.join(base, "outside") };
}
