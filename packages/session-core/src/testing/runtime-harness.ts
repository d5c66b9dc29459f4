import type { LanguageModelV3 } from "@ai-sdk/provider";
import { InMemoryEventBus } from "../adapters/in-memory-event-bus.js";
import { InMemorySessionStore } from "../adapters/in-memory-session-store.js";
import { InMemoryLeaseRegistry } from "../adapters/in-memory-turn-lease.js";
import type { Clock, IdSource } from "../ports/clock.js";
import type { SessionEvent } from "../ports/session-store.js";
import { type ComposedRuntime, composeRuntime } from "../runtime/compose-runtime.js";
import { type RecoveryLoop, startRecoveryLoop } from "../runtime/recovery-loop.js";
import type { AgentDefinition, AgentModels, Session } from "../runtime/session/session-facade.js";
import type { SessionRuntime } from "../runtime/session-runtime.js";
import type { ApprovalMode } from "../schema/approval-mode.js";
import type { AssistantMessage, SessionMessage } from "../schema/messages.js";
import type { SessionMutation } from "../schema/mutation.js";
import type { ToolPart } from "../schema/parts.js";
import type { AnyAgentTool, WorkspaceRef } from "../tools/define-agent-tool.js";
import { CommitFaults } from "./commit-faults.js";
import { toolPartsOfMutation, toolStatesIn } from "./mutation-recorder.js";
import { ProcessConnections } from "./simulated-process.js";

export const HARNESS_AGENT_ID = "agent:test";
const HARNESS_OWNER_ID = "user:owner";
/** The API's production recovery interval (`PARLEY_RECOVER_INTERVAL_MS` defaults to it). */
export const PRODUCTION_RECOVER_INTERVAL_MS = 1_000;
/**
 * The harness's `stream_checkpoint_ms` unless a test sets it: longer than any test, so that a stream
 * a test holds open on a slow machine gets no checkpoint the test did not ask for (the exact
 * commit lists tests pin would vary). The stream checkpoint has tests of its own that set it.
 */
const HARNESS_STREAM_CHECKPOINT_MS = 600_000;
/** What a recovery pass logs when it took Turns over (`startRecoveryLoop`). */
const TAKEN_OVER_LOG = "resumed Turns of sessions without a live owner";

export interface RuntimeHarnessOptions {
  /** The model of the harness's agent, `agent:test`. */
  model: LanguageModelV3;
  /** The models sessions may choose (`model` stays the agent's own). */
  models?: AgentModels;
  tools?: Record<string, AnyAgentTool>;
  system?: string;
  /** Further agents besides `agent:test`, each served under its own `agent_id`. */
  agents?: AgentDefinition[];
  /** The workspace every session's tools get; omitted: none. */
  workspace?: WorkspaceRef;
  /** Omitted: the system clock and random ids (e.g. `createTestClock()`, `createSequentialIds()`). */
  clock?: Clock;
  ids?: IdSource;
  /**
   * `PARLEY_STREAM_CHECKPOINT_MS` (production: 1 s; here `HARNESS_STREAM_CHECKPOINT_MS`). It is
   * measured with `clock`: with a test clock, only a test that moves the clock makes one.
   */
  stream_checkpoint_ms?: number;
  /**
   * Parking of waiting Turns, docs/behaviour.md#durability: on by default, as in production
   * (DESIGN §10.7); `false` is the live-waiter variant, tested as such.
   */
  park_waiting_turns?: boolean;
  /** `PARLEY_PARK_GRACE_MS` (default: production's, 500 ms): how long a waiting Turn stays held first. */
  park_grace_ms?: number;
  /** How often each process sweeps queued commands (default: the runtime's; 0: only when called). */
  command_sweep_ms?: number;
  /**
   * Every process runs the recovery loop from its start, as the server does (DESIGN §10.7): a pass
   * at once, then one every `recover_interval_ms` (default: production's 1 s), on real timers (a
   * test clock does not move it). `false` is for a test that calls `recover()` by hand and must
   * know which call took a Turn over; each such test says why.
   */
  recovery_loop?: boolean;
  recover_interval_ms?: number;
  /**
   * Awaited before every store call of every process and before its answer (see
   * `ProcessConnections`): e.g. a random number of event-loop turns, so that the processes'
   * calls interleave as round trips to a database do. Omitted: none.
   */
  store_latency?: () => Promise<void>;
}

/** One line a runtime of the harness logged, with the simulated process that logged it. */
export interface HarnessLogEntry {
  process_id: string;
  level: "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

/**
 * Several simulated processes of one deployment over one in-memory store, bus and lease table,
 * each runtime composed as the server composes it (`composeRuntime`) — what tests of the runtime
 * (and of durable resume) build on. A process can die in two ways: `kill(name)` loses its leases and
 * stops its runtime; `sever(name)` loses its leases and cuts its store and bus connections while its
 * in-flight work keeps running, every later I/O of it failing (a process frozen mid-flight).
 */
export class RuntimeHarness {
  readonly store = new InMemorySessionStore();
  /** Storage write failures every process's commits go through (`harness.faults.failNextCommit`). */
  readonly faults = new CommitFaults(this.store);
  readonly bus = new InMemoryEventBus();
  readonly leases = new InMemoryLeaseRegistry({ epochs: this.store });
  /** Every committed session event, in publish order. */
  readonly events: SessionEvent[] = [];
  /** Every live mutation (`live: true`, DESIGN §10.6) any process published, in publish order. */
  readonly live: SessionMutation[] = [];
  /** Everything any process logged. */
  readonly logs: HarnessLogEntry[] = [];
  readonly #processes = new Map<
    string,
    { composed: ComposedRuntime; connections: ProcessConnections; recovery: RecoveryLoop | null }
  >();
  readonly #agent: AgentDefinition;
  readonly #options: RuntimeHarnessOptions;

  constructor(options: RuntimeHarnessOptions) {
    this.#agent = {
      agent_id: HARNESS_AGENT_ID,
      model: options.model,
      ...(options.models ? { models: options.models } : {}),
      tools: options.tools ?? {},
      ...(options.system ? { system: options.system } : {}),
    };
    this.#options = options;
    this.bus.subscribe({
      onSessionEvent: (event) => this.events.push(event),
      onLiveMutation: (mutation) => this.live.push(mutation),
    });
  }

  /** The runtime of the process `process_id`, started on first use. */
  runtime(process_id = "A"): SessionRuntime {
    const running = this.#processes.get(process_id);
    if (running) return running.composed.runtime;
    const connections = new ProcessConnections(
      process_id,
      { store: this.faults.store, bus: this.bus },
      this.#options.store_latency,
    );
    const log = (level: HarnessLogEntry["level"]) => (fields: Record<string, unknown>, message: string) =>
      this.logs.push({ process_id, level, fields, message });
    const { workspace } = this.#options;
    const composed = composeRuntime({
      adapters: {
        store: connections.store,
        bus: connections.bus,
        leases: this.leases.forProcess(process_id),
      },
      agent: this.#agent,
      more_agents: this.#options.agents,
      workspaces: workspace ? { resolve: () => structuredClone(workspace) } : undefined,
      logger: { info: log("info"), warn: log("warn"), error: log("error") },
      clock: this.#options.clock,
      ids: this.#options.ids,
      stream_checkpoint_ms: this.#options.stream_checkpoint_ms ?? HARNESS_STREAM_CHECKPOINT_MS,
      park_waiting_turns: this.#options.park_waiting_turns ?? true,
      ...(this.#options.park_grace_ms === undefined ? {} : { park_grace_ms: this.#options.park_grace_ms }),
      // With the loop on, its pass sweeps commands as in production: no timer of the runtime's own.
      ...(this.#options.command_sweep_ms !== undefined
        ? { command_sweep_ms: this.#options.command_sweep_ms }
        : this.#options.recovery_loop === false
          ? {}
          : { command_sweep_ms: 0 }),
    });
    // The loop `composed.start()` would run, held here so that `sever` can stop it alone.
    const recovery =
      this.#options.recovery_loop === false
        ? null
        : startRecoveryLoop({
            runtime: composed.runtime,
            interval_ms: this.#options.recover_interval_ms ?? PRODUCTION_RECOVER_INTERVAL_MS,
            logger: { info: log("info"), warn: log("warn"), error: log("error") },
          });
    this.#processes.set(process_id, { composed, connections, recovery });
    return composed.runtime;
  }

  /** The process dies: its leases vanish and its runtime stops without another write. */
  async kill(process_id: string): Promise<void> {
    this.leases.killProcess(process_id);
    const entry = this.#processes.get(process_id);
    await entry?.recovery?.stop();
    await entry?.composed.close();
  }

  /**
   * The process freezes mid-flight: its leases vanish and its store and bus connections are cut, so
   * its later writes fail, and another process can take its Turns over (`runtime.recover()`).
   */
  sever(process_id: string): void {
    const entry = this.#processes.get(process_id);
    if (!entry) throw new Error(`Unknown process ${process_id}`);
    entry.connections.sever();
    this.leases.killProcess(process_id);
    // A frozen process runs no further pass (each would only fail at its first read).
    void entry.recovery?.stop();
  }

  /**
   * The sessions whose Turns the recovery loop of `process_id` took over, in order: what its passes
   * logged (a process starting takes over at once, as a server does at startup).
   */
  takenOverBy(process_id: string): string[] {
    return this.logs
      .filter((entry) => entry.process_id === process_id && entry.message === TAKEN_OVER_LOG)
      .flatMap((entry) => entry.fields.resumed_session_ids as string[]);
  }

  /** Stops every recovery loop, then shuts down the runtime of every process still connected. */
  async shutdown(): Promise<void> {
    for (const { composed, connections, recovery } of this.#processes.values()) {
      await recovery?.stop();
      if (connections.isAlive) await composed.close();
    }
  }

  /**
   * A session of `agent:test` owned by `user:owner` unless told otherwise, titled "Harness session"
   * unless `title` says otherwise (`""`: untitled, so that its first prompt names it and publishes a
   * title mutation).
   */
  async createSession(
    options: {
      process_id?: string;
      agent_id?: string;
      owner_id?: string;
      approval_mode?: ApprovalMode;
      model_id?: string;
      session_id?: string;
      title?: string;
    } = {},
  ): Promise<Session> {
    return this.runtime(options.process_id).createSession({
      owner_id: options.owner_id ?? HARNESS_OWNER_ID,
      agent_id: options.agent_id ?? HARNESS_AGENT_ID,
      title: options.title ?? "Harness session",
      ...(options.approval_mode ? { approval_mode: options.approval_mode } : {}),
      ...(options.model_id ? { model_id: options.model_id } : {}),
      ...(options.session_id ? { session_id: options.session_id } : {}),
    });
  }

  mutations(session_id: string): SessionMutation[] {
    return this.events.filter((event) => event.session_id === session_id).map((event) => event.mutation);
  }

  /** The live mutations of the session, in publish order. */
  liveMutations(session_id: string): SessionMutation[] {
    return this.live.filter((mutation) => mutation.session_id === session_id);
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
      for (const part of toolPartsOfMutation(mutation)) {
        if (part.tool_call_id === tool_call_id && states[states.length - 1] !== part.state) {
          states.push(part.state);
        }
      }
    }
    return states;
  }

  /** Live states of one tool part, in order (consecutive repeats collapsed): `input-streaming`, `ready`. */
  liveToolStates(session_id: string, tool_call_id: string): string[] {
    return toolStatesIn(this.liveMutations(session_id), tool_call_id);
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

  /** Resolves once `predicate` holds for a live mutation (checked on every later one too). */
  waitForLive(predicate: (mutation: SessionMutation) => boolean): Promise<SessionMutation> {
    const found = this.live.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const unsubscribe = this.bus.subscribe({
        onLiveMutation: (mutation) => {
          if (!predicate(mutation)) return;
          unsubscribe();
          resolve(mutation);
        },
      });
    });
  }

  /** Resolves when the tool `tool_call_id` has a pending Interaction; returns its id. */
  async pendingInteraction(tool_call_id: string): Promise<string> {
    const pendingOf = (mutation: SessionMutation) =>
      toolPartsOfMutation(mutation)
        .filter((part) => part.tool_call_id === tool_call_id)
        .flatMap((part) =>
          (part.interactions ?? []).filter((interaction) => interaction.status === "pending"),
        )
        .at(-1);
    const last = pendingOf(await this.waitFor((item) => pendingOf(item) !== undefined));
    if (!last) throw new Error("unreachable");
    return last.interaction_id;
  }
}
