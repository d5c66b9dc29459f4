import type { LanguageModelV3 } from "@ai-sdk/provider";
import { InMemoryEventBus } from "../adapters/in-memory-event-bus.js";
import { InMemorySessionStore } from "../adapters/in-memory-session-store.js";
import { InMemoryLeaseRegistry } from "../adapters/in-memory-turn-lease.js";
import type { SessionEvent } from "../ports/session-store.js";
import type { ApprovalMode } from "../schema/approval-mode.js";
import type { AssistantMessage, SessionMessage } from "../schema/messages.js";
import type { SessionMutation } from "../schema/mutation.js";
import type { ToolPart } from "../schema/parts.js";
import type { AnyAgentTool } from "../tools/define-agent-tool.js";
import type { AgentDefinition, AgentModels, Session } from "./session/session-facade.js";
import { SessionRuntime } from "./session-runtime.js";

export const HARNESS_AGENT_ID = "agent:test";

/**
 * Several simulated processes of one deployment over one in-memory store, bus and lease table —
 * what tests of the runtime (and of durable resume) build on. `kill(name)` is a process dying: its
 * leases vanish and its runtime stops without another write.
 */
export class RuntimeHarness {
  readonly store = new InMemorySessionStore();
  readonly bus = new InMemoryEventBus();
  readonly leases = new InMemoryLeaseRegistry({ epochs: this.store });
  /** Every committed session event, in publish order. */
  readonly events: SessionEvent[] = [];
  readonly #runtimes = new Map<string, SessionRuntime>();
  #agent: AgentDefinition;
  readonly #deltaFlushMs: number;
  readonly #parkWaitingTurns: boolean;

  constructor(options: {
    model: LanguageModelV3;
    /** The models sessions may choose (`model` stays the agent's own). */
    models?: AgentModels;
    tools?: Record<string, AnyAgentTool>;
    system?: string;
    delta_flush_ms?: number;
    /**
     * Parking of waiting Turns, docs/behaviour.md#durability (off by default here: most runtime
     * tests observe a waiting Turn held by its process; the parking tests turn it on).
     */
    park_waiting_turns?: boolean;
  }) {
    this.#agent = {
      agent_id: HARNESS_AGENT_ID,
      model: options.model,
      ...(options.models ? { models: options.models } : {}),
      tools: options.tools ?? {},
      ...(options.system ? { system: options.system } : {}),
    };
    this.#deltaFlushMs = options.delta_flush_ms ?? 5;
    this.#parkWaitingTurns = options.park_waiting_turns ?? false;
    this.bus.subscribe({ onSessionEvent: (event) => this.events.push(event) });
  }

  /** Replaces the agent every runtime resolves (e.g. a new model for the process after a restart). */
  setAgent(update: Partial<Omit<AgentDefinition, "agent_id">>): void {
    this.#agent = { ...this.#agent, ...update };
  }

  runtime(process_id = "A"): SessionRuntime {
    let runtime = this.#runtimes.get(process_id);
    if (!runtime) {
      runtime = new SessionRuntime({
        store: this.store,
        bus: this.bus,
        leases: this.leases.forProcess(process_id),
        agents: { get: (agent_id) => (agent_id === HARNESS_AGENT_ID ? this.#agent : undefined) },
        delta_flush_ms: this.#deltaFlushMs,
        park_waiting_turns: this.#parkWaitingTurns,
      });
      this.#runtimes.set(process_id, runtime);
    }
    return runtime;
  }

  async kill(process_id: string): Promise<void> {
    this.leases.killProcess(process_id);
    await this.#runtimes.get(process_id)?.shutdown();
  }

  /**
   * A session titled "Harness session" unless `title` says otherwise (`""`: untitled, so that its
   * first prompt names it and publishes a title mutation).
   */
  async createSession(
    options: {
      process_id?: string;
      approval_mode?: ApprovalMode;
      model_id?: string;
      session_id?: string;
      title?: string;
    } = {},
  ): Promise<Session> {
    return this.runtime(options.process_id).createSession({
      owner_id: "user:owner",
      agent_id: HARNESS_AGENT_ID,
      title: options.title ?? "Harness session",
      ...(options.approval_mode ? { approval_mode: options.approval_mode } : {}),
      ...(options.model_id ? { model_id: options.model_id } : {}),
      ...(options.session_id ? { session_id: options.session_id } : {}),
    });
  }

  mutations(session_id: string): SessionMutation[] {
    return this.events.filter((event) => event.session_id === session_id).map((event) => event.mutation);
  }

  async messages(session_id: string): Promise<SessionMessage[]> {
    return (await this.store.listMessages(session_id, { limit: 500 })).items;
  }

  async assistants(session_id: string): Promise<AssistantMessage[]> {
    return (await this.messages(session_id)).filter(
      (message): message is AssistantMessage => message.type === "assistant",
    );
  }

  async tool(session_id: string, tool_call_id: string): Promise<ToolPart> {
    for (const message of await this.assistants(session_id)) {
      for (const part of message.parts)
        if (part.type === "tool" && part.tool_call_id === tool_call_id) return part;
    }
    throw new Error(`No tool part ${tool_call_id} in session ${session_id}`);
  }

  /** Published states of one tool part, in order (consecutive repeats collapsed). */
  toolStates(session_id: string, tool_call_id: string): string[] {
    const states: string[] = [];
    for (const mutation of this.mutations(session_id)) {
      const parts =
        mutation.variant === "part"
          ? [mutation.part]
          : mutation.variant === "message" && mutation.message.type === "assistant"
            ? mutation.message.parts
            : [];
      for (const part of parts) {
        if (
          part.type === "tool" &&
          part.tool_call_id === tool_call_id &&
          states[states.length - 1] !== part.state
        ) {
          states.push(part.state);
        }
      }
    }
    return states;
  }

  /** Resolves once `predicate` holds for a committed event (checked on every later event too). */
  waitFor(predicate: (mutation: SessionMutation, event: SessionEvent) => boolean): Promise<SessionMutation> {
    const found = this.events.find((event) => predicate(event.mutation, event));
    if (found) return Promise.resolve(found.mutation);
    return new Promise((resolve) => {
      const unsubscribe = this.bus.subscribe({
        onSessionEvent: (event) => {
          if (!predicate(event.mutation, event)) return;
          unsubscribe();
          resolve(event.mutation);
        },
      });
    });
  }

  /** Resolves when the tool `tool_call_id` has a pending Interaction; returns its id. */
  async pendingInteraction(tool_call_id: string): Promise<string> {
    const mutation = await this.waitFor(
      (item) =>
        item.variant === "part" &&
        item.part.type === "tool" &&
        item.part.tool_call_id === tool_call_id &&
        (item.part.interactions ?? []).some((interaction) => interaction.status === "pending"),
    );
    if (mutation.variant !== "part" || mutation.part.type !== "tool") throw new Error("unreachable");
    const pending = (mutation.part.interactions ?? []).filter(
      (interaction) => interaction.status === "pending",
    );
    const last = pending[pending.length - 1];
    if (!last) throw new Error("unreachable");
    return last.interaction_id;
  }
}
