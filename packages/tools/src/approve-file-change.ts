import type { ToolCallContext } from "@parley/session-core";
import type { z } from "zod";
import { describeApprovalTarget } from "./approval-target.js";
import { approvedInput, requestToolApproval, withoutExplanation } from "./request-tool-approval.js";
import { type ConfinedPath, realWorkspaceRoot, requireWorkspace } from "./workspace-path.js";

/** The input of a file tool that changes one file: its path, maybe new content, and the model's why. */
type FileChangeInput = { path: string; content?: string; explanation?: string | undefined };

/** What a file tool needs to ask before it changes one file of the workspace. */
export interface FileChangeRequest<Input extends FileChangeInput, Target> {
  input: Input;
  /** The tool's input schema: an approver's edit is parsed with it. */
  schema: z.ZodType<Input>;
  /** The tool's description, shown on the approval card. */
  description: string;
  /** Before asking: confines `path` to the workspace and refuses what the tool may not touch (throws). */
  check(root: string, path: string): Promise<ConfinedPath>;
  /**
   * Once approved, on the approved path: the same refusals against the workspace as it is now, and
   * what the side effect acts on.
   */
  check_approved(root: string, path: string): Promise<Target>;
  /** Whether the card shows the file's current content (for a diff). */
  with_content: boolean;
}

/**
 * The approval sequence every file tool with a side effect runs, in this order: the path is
 * checked before asking (a call that cannot succeed never bothers a person), the approval carries
 * the model's explanation and the file as it is now, and — once approved — the Turn must still be
 * live and the path (possibly edited by the approver) is checked again, because the workspace may
 * have changed while the approval waited. Returns `null` when the approval was not given.
 *
 * On a durable resume `execute` runs again up to here and gets the stored answer at once, so a
 * tool must not touch anything before this returns.
 */
export async function approveFileChange<Input extends FileChangeInput, Target>(
  context: ToolCallContext,
  request: FileChangeRequest<Input, Target>,
): Promise<{ root: string; input: Input; target: Target } | null> {
  const root = await realWorkspaceRoot(requireWorkspace(context));
  const before = await request.check(root, request.input.path);
  const { validated, model_explanation } = withoutExplanation<FileChangeInput>(request.input);
  const decision = await requestToolApproval(context, validated, request.description, {
    model_explanation,
    target: await describeApprovalTarget(root, before, { withContent: request.with_content }),
  });
  if (!decision.approved) return null;
  // A Turn stopped or taken over while the approval was pending must not act any more.
  context.abort_signal.throwIfAborted();
  const input = approvedInput(request.schema, decision, request.input);
  return { root, input, target: await request.check_approved(root, input.path) };
}
