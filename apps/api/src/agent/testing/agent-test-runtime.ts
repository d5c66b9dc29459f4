import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import {
  type ApprovalMode,
  type AssistantMessage,
  composeRuntime,
  InMemoryEventBus,
  InMemoryLeaseRegistry,
  InMemorySessionStore,
  type InteractionRequest,
  type Session,
  type SessionRuntime,
  type ToolPart,
  type TurnHandle,
  type TurnResult,
} from "@parley/session-core";
import { createDefaultAgent } from "../create-default-agent.js";

/**
 * The default agent on a real `SessionRuntime` with the in-memory adapters, working in a fresh
 * temp directory (`root`; `outside` is a sibling for escape attempts). Tests drive it exactly as the
 * API does: prompt, read pending interactions, respond.
 */
export interface AgentTestRuntime {
  runtime: SessionRuntime;
  root: string;
  outside: string;
  createSession(options?: { approval_mode?: ApprovalMode }): Promise<Session>;
  dispose(): Promise<void>;
}

export async function startAgentTestRuntime(model: LanguageModelV3): Promise<AgentTestRuntime> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-agent-")));
  const root = path.join(base, "workspace");
  const outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  const store = new InMemorySessionStore();
  const agent = createDefaultAgent({ model });
  const { runtime, close } = composeRuntime({
    adapters: {
      store,
      bus: new InMemoryEventBus(),
      leases: new InMemoryLeaseRegistry({ epochs: store }).forProcess("test"),
    },
    agent,
    workspaces: { resolve: () => ({ workspace_id: null, root }) },
  });
  return {
    runtime,
    root,
    outside,
    createSession: (options = {}) =>
      runtime.createSession({
        owner_id: "user:test",
        agent_id: agent.agent_id,
        ...(options.approval_mode === undefined ? {} : { approval_mode: options.approval_mode }),
      }),
    async dispose() {
      await close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * The first pending Interaction of the session, once the Turn asked for one. Fails (instead of
 * hanging) when the Turn finishes without asking.
 */
export async function nextPendingInteraction(
  session: Session,
  turn: TurnHandle,
): Promise<InteractionRequest> {
  let finished: TurnResult | undefined;
  void turn.finished.then((result) => {
    finished = result;
  });
  for (;;) {
    const [pending] = await session.interactions();
    if (pending !== undefined) return pending;
    if (finished !== undefined) {
      throw new Error(`The Turn finished without an Interaction: ${JSON.stringify(finished)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The assistant messages of one Turn, oldest first. */
export async function assistantMessagesOf(session: Session, turn_id: string): Promise<AssistantMessage[]> {
  const page = await session.messages({ limit: 500 });
  return page.items.filter(
    (message): message is AssistantMessage => message.type === "assistant" && message.turn_id === turn_id,
  );
}

/** Every tool part of a Turn, in order. */
export async function toolPartsOf(session: Session, turn_id: string): Promise<ToolPart[]> {
  return (await assistantMessagesOf(session, turn_id)).flatMap((message) =>
    message.parts.filter((part): part is ToolPart => part.type === "tool"),
  );
}

/** The approval answer the SDK sends (docs/behaviour.md#approvals). */
export function approvalResponse(decision: "approved" | "denied") {
  return {
    type: "approval",
    outcome: decision === "approved" ? ("resolved" as const) : ("denied" as const),
    payload: { decision },
  };
}
