// The peer under test, copied here from an outside reference harness so that a clean clone can run
// it: a LangGraph JS graph with one human-approval
// `interrupt()` inside a tool, persisted by `@langchain/langgraph-checkpoint-postgres`.
//
//   START → agent (plain code, emits one tool call) → tools (ToolNode; the tool calls interrupt();
//   after the resume it records the side effect and returns) → END
//
// No LLM: the agent node returns an AIMessage with a tool call.
import { performance } from "node:perf_hooks";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { z } from "zod";

/** Parley's pool default on a 2-core box, and the peer's pg.Pool default: both 10. */
export const PEER_POOL_MAX = 10;

/** Per thread: how many times the tool body ran past `interrupt()`, and when it first did. */
export const sideEffects = new Map<string, { count: number; firstAt: number }>();

const incrementCounter = tool(
  async ({ amount }: { amount: number }, config) => {
    const threadId = String(config?.configurable?.thread_id);
    const decision = interrupt({
      type: "approval_request",
      tool: "increment_counter",
      args: { amount },
      message: `Approve incrementing the counter by ${amount}?`,
    }) as { decision?: string } | undefined;
    // Code after interrupt(): runs only on resume.
    const at = performance.now();
    if (decision?.decision !== "approved") return `rejected: ${JSON.stringify(decision)}`;
    const effect = sideEffects.get(threadId) ?? { count: 0, firstAt: at };
    effect.count += 1;
    sideEffects.set(threadId, effect);
    return `counter incremented by ${amount}`;
  },
  {
    name: "increment_counter",
    description: "Increment a counter (needs human approval).",
    schema: z.object({ amount: z.number() }),
  },
);

function agent(state: typeof MessagesAnnotation.State) {
  const n = state.messages.length;
  return {
    messages: [
      new AIMessage({
        content: "",
        tool_calls: [{ id: `call_${n}`, name: "increment_counter", args: { amount: 1 }, type: "tool_call" }],
      }),
    ],
  };
}

function route(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1) as AIMessage | undefined;
  return last?.tool_calls?.length ? "tools" : END;
}

export function buildApprovalGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", agent)
    .addNode("tools", new ToolNode([incrementCounter]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", route, ["tools", END])
    .addEdge("tools", END)
    .compile({ checkpointer });
}
