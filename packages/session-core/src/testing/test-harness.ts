import { InMemoryEventBus } from "../adapters/in-memory-event-bus.js";
import { InMemorySessionStore } from "../adapters/in-memory-session-store.js";
import { InMemoryLeaseRegistry, type InMemoryTurnLeaseManager } from "../adapters/in-memory-turn-lease.js";
import type { IdSource } from "../ports/clock.js";
import type { AgentDefinition, Session } from "../runtime/session/session-facade.js";
import { SessionRuntime } from "../runtime/session-runtime.js";
import type { CreateSessionInput, RuntimeLogger } from "../runtime/session-runtime-options.js";
import type { ApprovalMode } from "../schema/approval-mode.js";
import type { AnyAgentTool, WorkspaceRef } from "../tools/define-agent-tool.js";
import {
  createScriptedModel,
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  type ScriptItem,
} from "./scripted-model.js";
import { ProcessConnections } from "./simulated-process.js";
import { createSequentialIds, createTestClock, type TestClock } from "./test-clock.js";

export const TEST_AGENT_ID = "agent:test";
export const TEST_OWNER_ID = "user:owner";

export interface TestHarnessOptions {
  /**
   * Parking (docs/behaviour.md#durability) of Turns that wait for a person (default false in the
   * harness).
   */
  park_waiting_turns?: boolean;
  /** The scripted model's steps (ignored when `model` is given). Default: no step. */
  steps?: ScriptedStep[] | ((call: ScriptedCall) => ScriptItem[]);
  model?: ScriptedModel;
  model_options?: ScriptedModelOptions;
  tools?: Record<string, AnyAgentTool>;
  system?: string;
  /** Default approval mode of `harness.createSession()`. */
  approval_mode?: ApprovalMode;
  /** Further agents besides the test agent (`agent:test`). */
  agents?: AgentDefinition[];
  /** Workspace every session gets; omitted: the runtime has no workspace resolver. */
  workspace?: WorkspaceRef;
  delta_flush_ms?: number;
  start_time?: number;
}

export interface LogEntry {
  process_id: string;
  level: "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

/** One simulated API process: its runtime over its own view of the shared store, bus and leases. */
export interface SimulatedProcess {
  readonly process_id: string;
  readonly runtime: SessionRuntime;
  readonly leases: InMemoryTurnLeaseManager;
  readonly isAlive: boolean;
}

/**
 * A Parley runtime wired to in-memory adapters, a scripted model, a fixed clock and sequential ids,
 * for scenario tests. Several processes can share it (`startProcess`), and one can be killed
 * (`killProcess`): its leases are lost, its store and bus connections cut, and another process can
 * take its Turns over (`runtime.recover()`), fenced against late writes of the dead one.
 */
export interface TestHarness {
  readonly store: InMemorySessionStore;
  readonly bus: InMemoryEventBus;
  readonly leases: InMemoryLeaseRegistry;
  readonly clock: TestClock;
  readonly ids: IdSource;
  readonly model: ScriptedModel;
  readonly agent: AgentDefinition;
  /** The first process, `A`. */
  readonly process: SimulatedProcess;
  readonly runtime: SessionRuntime;
  /** Everything any process logged. */
  readonly logs: LogEntry[];
  createSession(input?: Partial<CreateSessionInput>): Promise<Session>;
  startProcess(process_id: string): SimulatedProcess;
  killProcess(process_id: string): void;
  /** Shuts every live process's runtime down. */
  shutdown(): Promise<void>;
}

export function createTestHarness(options: TestHarnessOptions = {}): TestHarness {
  const store = new InMemorySessionStore();
  const bus = new InMemoryEventBus();
  const leases = new InMemoryLeaseRegistry({ epochs: store });
  const clock = createTestClock(options.start_time);
  const ids = createSequentialIds();
  const logs: LogEntry[] = [];
  const model = options.model ?? createScriptedModel(options.steps ?? [], options.model_options);
  const agent: AgentDefinition = {
    agent_id: TEST_AGENT_ID,
    model,
    tools: options.tools ?? {},
    ...(options.system === undefined ? {} : { system: options.system }),
  };
  const agents = new Map(
    [agent, ...(options.agents ?? [])].map((definition) => [definition.agent_id, definition]),
  );
  const processes = new Map<string, { process: SimulatedProcess; connections: ProcessConnections }>();

  const startProcess = (process_id: string): SimulatedProcess => {
    if (processes.has(process_id)) throw new Error(`Process ${process_id} already exists`);
    const connections = new ProcessConnections(process_id, { store, bus });
    const logger: RuntimeLogger = {
      info: (fields, message) => logs.push({ process_id, level: "info", fields, message }),
      warn: (fields, message) => logs.push({ process_id, level: "warn", fields, message }),
      error: (fields, message) => logs.push({ process_id, level: "error", fields, message }),
    };
    const lease_manager = leases.forProcess(process_id);
    const runtime = new SessionRuntime({
      store: connections.store,
      bus: connections.bus,
      leases: lease_manager,
      agents: { get: (agent_id) => agents.get(agent_id) },
      clock,
      ids,
      logger,
      ...(options.workspace
        ? { resolveWorkspace: () => structuredClone(options.workspace) as WorkspaceRef }
        : {}),
      ...(options.delta_flush_ms === undefined ? {} : { delta_flush_ms: options.delta_flush_ms }),
      park_waiting_turns: options.park_waiting_turns ?? false,
    });
    const process: SimulatedProcess = {
      process_id,
      runtime,
      leases: lease_manager,
      get isAlive() {
        return connections.isAlive;
      },
    };
    processes.set(process_id, { process, connections });
    return process;
  };

  const first = startProcess("A");
  return {
    store,
    bus,
    leases,
    clock,
    ids,
    model,
    agent,
    process: first,
    runtime: first.runtime,
    logs,
    createSession: (input = {}) =>
      first.runtime.createSession({
        owner_id: TEST_OWNER_ID,
        agent_id: TEST_AGENT_ID,
        ...(options.approval_mode === undefined ? {} : { approval_mode: options.approval_mode }),
        ...input,
      }),
    startProcess,
    killProcess(process_id) {
      const entry = processes.get(process_id);
      if (!entry) throw new Error(`Unknown process ${process_id}`);
      entry.connections.sever();
      leases.killProcess(process_id);
    },
    async shutdown() {
      for (const { process } of processes.values()) {
        if (process.isAlive) await process.runtime.shutdown();
      }
    },
  };
}
