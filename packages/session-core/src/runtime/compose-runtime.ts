import type { EventBus } from "../ports/event-bus.js";
import type { SessionStore } from "../ports/session-store.js";
import type { TurnLeaseManager } from "../ports/turn-lease.js";
import type { SessionRecord } from "../schema/session.js";
import type { WorkspaceRef } from "../tools/define-agent-tool.js";
import { type RecoveryLoop, startRecoveryLoop } from "./recovery-loop.js";
import type { AgentDefinition } from "./session/session-facade.js";
import { SessionRuntime } from "./session-runtime.js";
import type { RuntimeLogger, SessionRuntimeOptions } from "./session-runtime-options.js";

/**
 * A composition without a recovery loop (tests, benches; the server always has one) sweeps queued
 * commands this often, as every runtime did before the pass took the sweep over.
 */
const UNLOOPED_COMMAND_SWEEP_MS = 250;

/** The ports a runtime runs on, already built: Postgres (`@parley/db`) or in-memory. */
export interface RuntimeAdapters {
  store: SessionStore;
  bus: EventBus;
  /** This process's leases. */
  leases: TurnLeaseManager;
}

/** Gives each session's tools their workspace (`context.workspace`). */
export interface WorkspaceResolver {
  resolve(session: SessionRecord): WorkspaceRef;
}

export interface ComposeRuntimeOptions
  extends Pick<
    SessionRuntimeOptions,
    "clock" | "ids" | "stream_checkpoint_ms" | "command_sweep_ms" | "park_waiting_turns" | "park_grace_ms"
  > {
  adapters: RuntimeAdapters;
  /**
   * The agent sessions run. It is looked up by reference on every use, so a test that changes the
   * object's fields changes the agent of every later step.
   */
  agent: AgentDefinition;
  /** Further agents besides `agent`, each served under its own `agent_id`. */
  more_agents?: readonly AgentDefinition[];
  /** Omitted: tools get no workspace. */
  workspaces?: WorkspaceResolver;
  logger?: RuntimeLogger;
  /**
   * How often `start()` re-runs the liveness pass (`recover()`) after its first one, in ms
   * (docs/behaviour.md#durability); omitted: `start()` recovers once, and queued commands are swept
   * by the runtime's own timer (`command_sweep_ms`, 250 ms unless set).
   */
  recover_interval_ms?: number;
}

export interface ComposedRuntime {
  runtime: SessionRuntime;
  /**
   * Startup recovery: takes over the Turns no live process owns (a failure rejects, so a server does
   * not start half-recovered), then keeps doing so every `recover_interval_ms`.
   */
  start(): Promise<void>;
  /** Stops the recovery loop, then shuts the runtime down (its leases are released). */
  close(): Promise<void>;
}

/**
 * The one place a `SessionRuntime` is wired from built adapters: the server (`apps/api` `main.ts`),
 * every test harness and the bench compose it here, so that what the tests run is what is served.
 */
export function composeRuntime(options: ComposeRuntimeOptions): ComposedRuntime {
  const { agent } = options;
  const more_agents = new Map(
    (options.more_agents ?? []).map((definition) => [definition.agent_id, definition]),
  );
  const { workspaces } = options;
  const runtime = new SessionRuntime({
    store: options.adapters.store,
    bus: options.adapters.bus,
    leases: options.adapters.leases,
    agents: { get: (agent_id) => (agent_id === agent.agent_id ? agent : more_agents.get(agent_id)) },
    resolveWorkspace: workspaces ? (session) => workspaces.resolve(session) : undefined,
    logger: options.logger,
    clock: options.clock,
    ids: options.ids,
    stream_checkpoint_ms: options.stream_checkpoint_ms,
    // Without a recovery loop nothing runs the pass, so the runtime sweeps commands on its own timer.
    command_sweep_ms:
      options.command_sweep_ms ??
      (options.recover_interval_ms === undefined ? UNLOOPED_COMMAND_SWEEP_MS : undefined),
    park_waiting_turns: options.park_waiting_turns,
    park_grace_ms: options.park_grace_ms,
  });
  let recovery: RecoveryLoop | null = null;
  return {
    runtime,
    async start() {
      await runtime.recover();
      if (options.recover_interval_ms !== undefined) {
        recovery = startRecoveryLoop({
          runtime,
          interval_ms: options.recover_interval_ms,
          logger: options.logger,
        });
      }
    },
    async close() {
      await recovery?.stop();
      await runtime.shutdown();
    },
  };
}
