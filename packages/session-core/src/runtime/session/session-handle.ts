import { LIMITS } from "../../contract/limits.js";
import { ParleyError } from "../../errors.js";
import type { MessagePage } from "../../ports/session-store.js";
import type { InteractionRequest, InteractionResult, RespondInput } from "../../schema/interaction.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { QueuedPrompt, WithdrawPromptResult } from "../../schema/queued-prompt.js";
import {
  type SessionInfo,
  type SessionRecord,
  type SessionSetInput,
  type SessionSetOptions,
  type SessionStatus,
  type StopResult,
  sessionSetInputSchema,
  sessionSetOptionsSchema,
} from "../../schema/session.js";
import { closeSession } from "../commands/close.js";
import { enqueuePrompt, withdrawPrompt } from "../commands/prompt.js";
import { parseRespondInput, respondToSessionInteraction } from "../commands/respond.js";
import { configure } from "../commands/set.js";
import { stopSession } from "../commands/stop.js";
import { RuntimeInteractionPort } from "../interactions/interaction-port.js";
import { findToolIndex } from "../transitions/transition.js";
import {
  changeOfSetInput,
  configuredConfig,
  differenceFrom,
  isEmptyChange,
  setInputOfChange,
} from "./session-config.js";
import type {
  Actor,
  RespondPrefetch,
  Session,
  SessionInteractions,
  SubscribeOptions,
  TurnHandle,
} from "./session-facade.js";
import type { SessionHost } from "./session-host.js";
import type { SessionHosts } from "./session-hosts.js";
import { subscribeToSession } from "./session-subscription.js";

const DEFAULT_MESSAGE_LIMIT = 200;
const MAX_MESSAGE_LIMIT = 500;

/**
 * The `Session` facade (the one the SDK offers over the network) over this process's host of the
 * session. It never holds the host: each operation that needs it pins it for its duration
 * (`SessionHosts.use`), so a facade kept by a caller never keeps an idle session in memory and
 * always reaches the session's one current host.
 */
export class SessionHandle implements Session {
  readonly id: string;
  readonly interactions: SessionInteractions;
  readonly #hosts: SessionHosts;
  /** The record as the opener had just read it; the first call that needs one takes it (see `#record`). */
  #known: SessionRecord | undefined;

  constructor(hosts: SessionHosts, session_id: string, known?: SessionRecord) {
    this.#hosts = hosts;
    this.id = session_id;
    this.#known = known;
    const list = () => this.#pendingRequests();
    this.interactions = Object.assign(list, {
      request: (input: Parameters<SessionInteractions["request"]>[0]) => this.#request(input),
      approval: {
        request: (input: Parameters<SessionInteractions["approval"]["request"]>[0]) =>
          this.#hosts.use(this.id, (host) => this.#port(host).approval.request(input)),
      },
    });
  }

  get #context() {
    return this.#hosts.context;
  }

  /** The facade's own port: it always creates, and its waiters belong to the host (pinned meanwhile). */
  #port(host: SessionHost): RuntimeInteractionPort {
    const { context } = host;
    return new RuntimeInteractionPort({
      session_id: host.session_id,
      writer: host.writer,
      store: context.store,
      waiters: context.waiters,
      ids: context.ids,
      clock: context.clock,
      owner: host,
      locateTool: async (tool_call_id) =>
        // A part this process streams may be live only (DESIGN §10.6): it is found there first.
        host.writer.locateLiveTool(tool_call_id) ?? (await this.#locateTool(tool_call_id)),
      approvalMode: () => host.settings.approvalMode,
      toolAllowances: () => host.settings.toolAllowances,
      countsOrdinals: false,
    });
  }

  /** The host stays pinned until the Interaction is answered: its waiter lives there. */
  async #request(input: Parameters<SessionInteractions["request"]>[0]) {
    const host = await this.#hosts.acquire(this.id);
    try {
      const handle = await this.#port(host).request(input);
      void handle.result.then(() => this.#hosts.release(host));
      return handle;
    } catch (error) {
      this.#hosts.release(host);
      throw error;
    }
  }

  async prompt(input: { query: string; request_id?: string }): Promise<TurnHandle> {
    const query = input?.query;
    if (typeof query !== "string" || query.trim().length === 0) {
      throw new ParleyError("invalid_input", "session.prompt requires a non-empty query");
    }
    if (query.length > LIMITS.prompt_chars) {
      throw new ParleyError(
        "invalid_input",
        `session.prompt query is longer than ${LIMITS.prompt_chars} characters`,
      );
    }
    const record = await this.#requireOpen();
    if (
      input.request_id !== undefined &&
      (typeof input.request_id !== "string" || input.request_id.length === 0)
    ) {
      throw new ParleyError("invalid_input", "session.prompt request_id must be a non-empty string");
    }
    const { request_id } = input;
    return this.#hosts.use(this.id, (host) => enqueuePrompt(host, query, request_id, record), record);
  }

  async queuedPrompts(): Promise<QueuedPrompt[]> {
    await this.#record();
    const commands = await this.#context.store.listQueuedPrompts(this.id);
    return commands.flatMap((command) =>
      command.turn_id === null
        ? []
        : [
            {
              request_id: command.request_id,
              query: command.input.query,
              turn_id: command.turn_id,
              created_at: command.created_at,
            },
          ],
    );
  }

  async withdrawPrompt(input: { request_id: string }): Promise<WithdrawPromptResult> {
    const request_id = input?.request_id;
    if (typeof request_id !== "string" || request_id.length === 0 || request_id.length > LIMITS.id_chars) {
      throw new ParleyError("invalid_input", "session.withdrawPrompt requires a request_id");
    }
    const record = await this.#requireOpen();
    return this.#hosts.use(this.id, (host) => withdrawPrompt(host, request_id), record);
  }

  async stop(): Promise<StopResult> {
    const record = await this.#requireOpen();
    return this.#hosts.use(this.id, (host) => stopSession(host, "turn_stopped"), record);
  }

  async rename(title: string): Promise<SessionInfo> {
    const trimmed = typeof title === "string" ? title.trim() : "";
    if (trimmed.length === 0 || trimmed.length > LIMITS.title_chars) {
      throw new ParleyError(
        "invalid_input",
        `session.rename title must be 1 to ${LIMITS.title_chars} characters after trimming`,
      );
    }
    const record = await this.#requireOpen();
    // The title and its mutation in one revision; no prompt titles the session after it.
    await this.#hosts.use(
      this.id,
      (host) => {
        const now = this.#context.clock.now();
        return host.writer.commitSessionChange({
          session_patch: { title: trimmed, updated_at: now },
          mutation: {
            ...host.writer.newMutationBase(now),
            variant: "session",
            type: "title",
            title: trimmed,
          },
        });
      },
      record,
    );
    return this.info();
  }

  async close(): Promise<void> {
    const record = await this.#requireOpen();
    await this.#hosts.use(this.id, (host) => closeSession(host), record);
  }

  subscribe(
    listener: (mutation: SessionMutation) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): () => void {
    const { store, bus, logger } = this.#context;
    const unsubscribe = subscribeToSession({
      session_id: this.id,
      store,
      bus,
      logger,
      listener,
      after_event_id: options.after_event_id,
    });
    const unsubscribed = this.#hosts.subscribed(this.id);
    return () => {
      unsubscribe();
      unsubscribed();
    };
  }

  respond(input: RespondInput, actor?: Actor, prefetched: RespondPrefetch = {}): Promise<InteractionResult> {
    try {
      const parsed = parseRespondInput(input);
      const session = this.#takeKnown();
      return respondToSessionInteraction(this.#hosts, this.id, parsed, actor, {
        ...prefetched,
        ...(session === undefined ? {} : { session }),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async status(): Promise<SessionStatus> {
    const record = await this.#record();
    const turn_id = await this.#runningTurnId();
    return {
      session_id: this.id,
      state: turn_id === undefined ? "idle" : "running",
      ...(turn_id === undefined ? {} : { active_turn_id: turn_id }),
      model_id: record.model_id,
      effective_model_id: record.effective_model_id,
      security: {
        approval_mode: record.approval_mode,
        effective_approval_mode: record.effective_approval_mode,
        tool_allowances: record.tool_allowances,
        effective_tool_allowances: record.effective_tool_allowances,
      },
    };
  }

  /**
   * `model_id`, `security.approval_mode` and/or `security.tool_allowances` (the whole list: leaving
   * one out revokes it), configured now and effective at
   * the next Step checkpoint; only the settings that differ from the configured ones are changed, and
   * when none does nothing happens (`queued: false`).
   */
  async set(input: SessionSetInput, options: SessionSetOptions = {}): Promise<{ queued: boolean }> {
    const parsedOptions = sessionSetOptionsSchema.safeParse(options ?? {});
    if (!parsedOptions.success)
      throw new ParleyError("invalid_input", "session.set options must be booleans");
    const parsed = sessionSetInputSchema.safeParse(input);
    if (!parsed.success) {
      const modeIssue = parsed.error.issues.some(
        (issue) => issue.path.join(".") === "security.approval_mode",
      );
      const modelIssue = parsed.error.issues.some((issue) => issue.path.join(".") === "model_id");
      const allowanceIssue = parsed.error.issues.find(
        (issue) => issue.path[0] === "security" && issue.path[1] === "tool_allowances",
      );
      throw new ParleyError(
        "invalid_input",
        modeIssue
          ? "security.approval_mode must be ask or always-allow"
          : modelIssue
            ? "session.set model_id must be a non-empty string"
            : allowanceIssue
              ? `${allowanceIssue.path.join(".")}: ${allowanceIssue.message}`
              : "session.set accepts only model_id, security.approval_mode and security.tool_allowances",
      );
    }
    const requested = changeOfSetInput(parsed.data);
    if (isEmptyChange(requested))
      throw new ParleyError("invalid_input", "session.set requires model or security");
    const persist_action = parsedOptions.data.persist_action ?? true;
    const publish_mutation = parsedOptions.data.publish_mutation ?? persist_action;
    if (!persist_action && publish_mutation) {
      throw new ParleyError("invalid_input", "session.set publish_mutation requires persist_action");
    }
    const record = await this.#requireOpen();
    if (requested.model_id !== undefined) this.#assertOfferedModel(record, requested.model_id);
    const change = differenceFrom(configuredConfig(record), requested);
    if (isEmptyChange(change)) return { queued: false };
    await this.#hosts.use(
      this.id,
      (host) => configure(host, { input: setInputOfChange(change), persist_action, publish_mutation }),
      record,
    );
    return { queued: true };
  }

  #assertOfferedModel(record: SessionRecord, model_id: string): void {
    if (!this.#context.agents.get(record.agent_id)?.models?.resolve(model_id)) {
      throw new ParleyError("invalid_input", `Unknown model_id: ${model_id}`);
    }
  }

  async messages(query: { before_sequence?: number; limit?: number } = {}): Promise<MessagePage> {
    const limit = query.limit ?? DEFAULT_MESSAGE_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MESSAGE_LIMIT) {
      throw new ParleyError("invalid_input", `limit must be an integer from 1 to ${MAX_MESSAGE_LIMIT}`);
    }
    const before = query.before_sequence;
    if (before !== undefined && (!Number.isInteger(before) || before < 1)) {
      throw new ParleyError("invalid_input", "before_sequence must be a positive integer");
    }
    return this.#context.store.listMessages(
      this.id,
      before === undefined ? { limit } : { before_sequence: before, limit },
    );
  }

  async info(): Promise<SessionInfo> {
    const record = await this.#record();
    const pending_interactions = await this.#context.store.countPendingInteractions(this.id);
    const running = (await this.#runningTurnId()) !== undefined;
    return {
      ...record,
      pending_interactions,
      state: record.closed_at !== null ? "closed" : running ? "running" : "idle",
    };
  }

  async #pendingRequests(): Promise<InteractionRequest[]> {
    const records = await this.#context.store.listPendingInteractions(this.id);
    return records.map((record) => record.interaction.request);
  }

  /**
   * The session's unfinished Turn, read from its Turn row (DESIGN §10.7) on every instance: queued,
   * running (its first model request in flight included) or waiting for a person.
   */
  async #runningTurnId(): Promise<string | undefined> {
    return (await this.#context.store.getActiveTurn(this.id))?.turn_id;
  }

  async #locateTool(tool_call_id: string): Promise<string | undefined> {
    const open = await this.#context.store.listOpenAssistantMessages(this.id);
    for (const message of open) {
      if (message.type === "assistant" && findToolIndex(message, tool_call_id) >= 0)
        return message.message_id;
    }
    return undefined;
  }

  /**
   * The stored record. A handle opened with the record its opener had just read (an API procedure
   * checking access, one call per handle) uses that for its first call instead of reading it again;
   * every later call reads, so a handle kept for long never decides on an old copy. Writes check
   * again in the store (a closed session's write fails there).
   */
  async #record() {
    const known = this.#takeKnown();
    if (known !== undefined) return known;
    const record = await this.#context.store.getSession(this.id);
    if (!record) throw new ParleyError("session_not_found", `Session not found: ${this.id}`);
    return record;
  }

  /** The record the handle was opened with, once: its first call uses it, later calls read. */
  #takeKnown(): SessionRecord | undefined {
    const known = this.#known;
    this.#known = undefined;
    return known;
  }

  /** The stored record of the session, which must be open. */
  async #requireOpen(): Promise<SessionRecord> {
    const record = await this.#record();
    if (record.closed_at !== null || this.#hosts.peek(this.id)?.isClosed) {
      throw new ParleyError("session_closed", `Session is closed: ${this.id}`);
    }
    return record;
  }
}
