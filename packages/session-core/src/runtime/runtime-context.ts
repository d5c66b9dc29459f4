import type { Clock } from "../ports/clock.js";
import type { EventBus } from "../ports/event-bus.js";
import type { SessionStore } from "../ports/session-store.js";
import type { TurnLeaseManager } from "../ports/turn-lease.js";
import type { SessionMessage } from "../schema/messages.js";
import type { SessionRecord } from "../schema/session.js";
import type { WorkspaceRef } from "../tools/define-agent-tool.js";
import type { RuntimeIds } from "./ids.js";
import type { InteractionWaiters } from "./interactions/interaction-waiters.js";
import type { AgentDefinition } from "./session/session-facade.js";
import type { RuntimeLogger } from "./session-runtime-options.js";
import type { ParkGrace } from "./turn/park-grace.js";

/** What every part of one runtime shares: the ports plus this process's waiters. */
export interface RuntimeContext {
  store: SessionStore;
  bus: EventBus;
  leases: TurnLeaseManager;
  agents: { get(agent_id: string): AgentDefinition | undefined };
  resolveWorkspace: ((session: SessionRecord) => WorkspaceRef) | undefined;
  clock: Clock;
  ids: RuntimeIds;
  logger: RuntimeLogger | undefined;
  waiters: InteractionWaiters;
  /** See `SessionRuntimeOptions.stream_checkpoint_ms`. */
  stream_checkpoint_ms: number;
  /**
   * docs/behaviour.md#durability: a Turn whose open tools all wait for a person holds nothing while
   * it waits.
   */
  park_waiting_turns: boolean;
  /** The grace before a waiting Turn parks, and the Turns in it now. */
  park_grace: ParkGrace;
  /** Aborted when the runtime shuts down. */
  closing: AbortSignal;
}

const PAGE = 500;

/** Every message of a session, ascending by sequence. */
export async function loadAllMessages(store: SessionStore, session_id: string): Promise<SessionMessage[]> {
  let page = await store.listMessages(session_id, { limit: PAGE });
  const pages: SessionMessage[][] = [page.items];
  while (page.has_more && page.next_before_sequence !== null) {
    page = await store.listMessages(session_id, { before_sequence: page.next_before_sequence, limit: PAGE });
    pages.unshift(page.items);
  }
  return pages.flat();
}
