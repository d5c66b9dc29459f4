import type {
  AgentDefinition,
  AuthStore,
  EventBus,
  InboxReader,
  SessionRuntimeApi,
  SessionStore,
} from "@parley/session-core";
import type { Logger } from "pino";
import type { MemberQuotas } from "./limits/member-quotas.js";
import type { ModelListItem } from "./models/index.js";
import type { WorkspaceCatalog } from "./workspace-catalog.js";

/**
 * Everything a procedure may use, built once by the composition root (`main.ts`, or a test) and
 * handed to every request's context. Procedures never construct adapters themselves.
 */
export interface ApiServices {
  runtime: SessionRuntimeApi;
  /** Read side for lists, the admin inbox and subscription replay. Writes go through `runtime`. */
  store: SessionStore;
  /** Live committed events; subscriptions combine it with `store` replay for no gap. */
  bus: EventBus;
  auth: AuthStore;
  /** The admin inbox joined with sessions and owners; absent: `storeInboxReader(store, auth)`. */
  inbox?: InboxReader;
  workspaces: WorkspaceCatalog;
  /** The models sessions may choose (`model.list`); the agent resolves them (`AgentDefinition.models`). */
  models: { list(): ModelListItem[] };
  /** The agent every new session runs (the server serves one default agent). */
  agent_id: string;
  logger: Logger;
  /**
   * Members' quotas (sessions, prompts per minute, workspace bytes) held in the database; absent
   * (the in-memory test API): none are enforced.
   */
  quotas?: MemberQuotas;
  /**
   * The derived state (pending interactions, running) of a page of sessions in one query, for
   * `session.list`; absent (the in-memory test API): each session's `info()`.
   */
  session_states?: {
    statesOf(session_ids: string[]): Promise<Map<string, { pending_interactions: number; running: boolean }>>;
  };
}

/** The adapters the services read: `@parley/db`'s database, or session-core's in-memory ones and an auth store. */
export interface ServiceAdapters {
  store: SessionStore;
  bus: EventBus;
  auth: AuthStore;
  inbox?: InboxReader | undefined;
}

/**
 * The one assembly of `ApiServices` (the server, the in-memory test API and the bench stacks all
 * build theirs here): the composed runtime, the read side of `adapters`, the agent every new
 * session runs, and the database-backed extras where there is a database.
 */
export function composeApiServices(parts: {
  runtime: SessionRuntimeApi;
  adapters: ServiceAdapters;
  agent: Pick<AgentDefinition, "agent_id">;
  workspaces: WorkspaceCatalog;
  models: ApiServices["models"];
  logger: Logger;
  quotas?: MemberQuotas;
  session_states?: ApiServices["session_states"];
}): ApiServices {
  const { adapters } = parts;
  return {
    runtime: parts.runtime,
    store: adapters.store,
    bus: adapters.bus,
    auth: adapters.auth,
    ...(adapters.inbox ? { inbox: adapters.inbox } : {}),
    workspaces: parts.workspaces,
    models: parts.models,
    agent_id: parts.agent.agent_id,
    logger: parts.logger,
    ...(parts.quotas ? { quotas: parts.quotas } : {}),
    ...(parts.session_states ? { session_states: parts.session_states } : {}),
  };
}
