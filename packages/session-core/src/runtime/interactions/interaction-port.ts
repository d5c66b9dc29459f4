import type { Clock } from "../../ports/clock.js";
import type { SessionStore } from "../../ports/session-store.js";
import {
  type ApprovalDecision,
  type ApprovalRequestInput,
  approvalRequestInputSchema,
  SESSION_APPROVAL_RESPONSE_SCHEMA,
} from "../../schema/approval.js";
import type { ApprovalMode } from "../../schema/approval-mode.js";
import type {
  Interaction,
  InteractionRequest,
  InteractionRequestInput,
  InteractionResult,
} from "../../schema/interaction.js";
import type { JsonValue } from "../../schema/json.js";
import type { AssistantMessage } from "../../schema/messages.js";
import { allowanceCovers, type ToolAllowance } from "../../schema/tool-allowance.js";
import type { ApprovalPort, InteractionHandle, InteractionPort } from "../../tools/define-agent-tool.js";
import type { RuntimeIds } from "../ids.js";
import type { SessionWriter } from "../session/session-writer.js";
import {
  type AutoApproval,
  interactionResultOf,
  markInteractionResumed,
  markToolAutoApproved,
  requestInteraction,
} from "../transitions/interaction-transitions.js";
import { findToolIndex } from "../transitions/transition.js";
import { approvedInputOf } from "./approval-edit.js";
import type { HandOver, InteractionWaiters } from "./interaction-waiters.js";
import { assertAcceptableResponseSchema } from "./response-schema-validation.js";

export interface InteractionPortDeps {
  session_id: string;
  writer: SessionWriter;
  store: SessionStore;
  waiters: InteractionWaiters;
  ids: RuntimeIds;
  clock: Clock;
  /** Whose waiters these are (the Turn); abandoned together with it. */
  owner: object;
  /** The open assistant message holding the tool call, if any. */
  locateTool(tool_call_id: string): Promise<string | undefined>;
  /** The approval mode the current Step captured (G57). */
  approvalMode(): ApprovalMode;
  /** The tools allowed for the session, as the current Step captured them (G57). */
  toolAllowances(): ToolAllowance[];
  epoch?: number;
  /**
   * Durable resume: the k-th request of one `execute` for a tool call attaches to that tool's
   * `interactions[k]` when it exists. Tools' ports count per call; the facade's port always creates.
   */
  countsOrdinals: boolean;
  /**
   * Commits the tool `running` (fenced) before an auto-approved side effect starts
   * (docs/behaviour.md#durability). Absent for the facade's port, which has no tool of its own.
   */
  markRunning?(tool_call_id: string, auto_approved: AutoApproval): Promise<void>;
}

function envelopeError(input: Partial<InteractionRequestInput>): string | null {
  if (!input.turn_id) return "Session Interaction requires turn_id";
  if (!input.type) return "Session Interaction requires a non-empty type";
  if (!input.tool_call_id) return "Session Interaction requires the Tool Call it belongs to";
  return null;
}

/**
 * The generic `interactions.request` primitive plus the approval port over it
 * (docs/behaviour.md#custom-interaction-types, #approvals).
 */
export class RuntimeInteractionPort implements InteractionPort {
  readonly #deps: InteractionPortDeps;
  readonly #ordinals = new Map<string, number>();
  readonly approval: ApprovalPort;

  constructor(deps: InteractionPortDeps) {
    this.#deps = deps;
    this.approval = { request: (input) => this.#requestApproval(input) };
  }

  async request(input: InteractionRequestInput): Promise<InteractionHandle> {
    const problem = envelopeError(input);
    if (problem) throw new Error(problem);
    if (input.response_schema !== undefined) assertAcceptableResponseSchema(input.response_schema);
    const message_id = await this.#deps.locateTool(input.tool_call_id);
    if (!message_id) throw new Error(`Streaming Tool Part not found: ${input.tool_call_id}`);
    const ordinal = this.#deps.countsOrdinals ? (this.#ordinals.get(input.tool_call_id) ?? 0) : undefined;
    if (ordinal !== undefined) {
      const existing = await this.#existingAt(message_id, input.tool_call_id, ordinal);
      if (existing) {
        this.#ordinals.set(input.tool_call_id, ordinal + 1);
        return this.#attach(message_id, input, existing);
      }
    }
    const handle = await this.#create(message_id, input, ordinal);
    if (ordinal !== undefined) this.#ordinals.set(input.tool_call_id, ordinal + 1);
    return handle;
  }

  async #create(
    message_id: string,
    input: InteractionRequestInput,
    ordinal: number | undefined,
  ): Promise<InteractionHandle> {
    const { clock, ids, waiters, writer, owner } = this.#deps;
    const interaction_id = ids.interaction();
    const request: InteractionRequest = {
      interaction_id,
      turn_id: input.turn_id,
      type: input.type,
      source: {
        type: input.source_type ?? "tool",
        tool_call_id: input.tool_call_id,
        ...(input.tool_name === undefined ? {} : { tool_name: input.tool_name }),
      },
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(input.description === undefined ? {} : { description: input.description }),
      payload: input.payload,
      ...(input.response_schema === undefined ? {} : { response_schema: input.response_schema }),
      created_at: clock.now(),
    };
    const interaction: Interaction = {
      interaction_id,
      interaction_type: input.type,
      status: "pending",
      request,
    };
    const result = waiters.wait(interaction_id, owner, this.#handOver(message_id), input.tool_call_id);
    try {
      await writer.updateAssistant(
        message_id,
        (current) =>
          requestInteraction(current, {
            tool_call_id: input.tool_call_id,
            ordinal: ordinal ?? toolInteractions(current, input.tool_call_id).length,
            interaction,
          }),
        this.#deps.epoch === undefined ? {} : { epoch: this.#deps.epoch },
      );
    } catch (error) {
      waiters.discard(interaction_id);
      throw error;
    }
    return { interaction_id, result, request };
  }

  /** Resumed execution: the same request again returns the existing Interaction, never a duplicate. */
  async #attach(
    message_id: string,
    input: InteractionRequestInput,
    existing: Interaction,
  ): Promise<InteractionHandle> {
    if (existing.request.type !== input.type) {
      throw new Error(
        `Resumed tool ${input.tool_call_id} asked for a ${input.type} Interaction where ${existing.request.type} was asked before`,
      );
    }
    const { waiters, owner } = this.#deps;
    const result: Promise<InteractionResult> = waiters.wait(
      existing.interaction_id,
      owner,
      this.#handOver(message_id),
      input.tool_call_id,
    );
    // A terminal answer is final (Interactions only move from pending to terminal): settle from it.
    // A pending one is read again after registering: an answer committed in between is seen either
    // here or on the bus.
    const fresh =
      interactionResultOf(existing) !== null
        ? existing
        : await this.#existingAt(message_id, input.tool_call_id, undefined, existing.interaction_id, true);
    waiters.settleFrom(fresh ?? existing);
    return { interaction_id: existing.interaction_id, result, request: existing.request };
  }

  /**
   * A Turn's tool continues with a `resolved` answer only once `resumed_at` is committed under the
   * Turn's epoch; without it, recovery runs the tool again (docs/behaviour.md#durability). The
   * facade's port (no Turn, no epoch) has no tool waiting to hand over to.
   */
  #handOver(message_id: string): HandOver | undefined {
    const { epoch, writer } = this.#deps;
    if (epoch === undefined) return undefined;
    return {
      epoch,
      message_id,
      commit: async (interaction) => {
        await writer.updateAssistant(
          message_id,
          (current, now) => markInteractionResumed(current, interaction.interaction_id, now),
          { epoch },
        );
      },
    };
  }

  async #existingAt(
    message_id: string,
    tool_call_id: string,
    ordinal: number | undefined,
    interaction_id?: string,
    fromStore = false,
  ): Promise<Interaction | undefined> {
    const message = fromStore
      ? await this.#load(message_id)
      : (this.#deps.writer.cached(message_id) ?? (await this.#load(message_id)));
    const interactions = message ? toolInteractions(message, tool_call_id) : [];
    if (interaction_id !== undefined)
      return interactions.find((item) => item.interaction_id === interaction_id);
    return ordinal === undefined ? undefined : interactions[ordinal];
  }

  async #load(message_id: string): Promise<AssistantMessage | undefined> {
    const stored = await this.#deps.store.getMessage(this.#deps.session_id, message_id);
    return stored?.type === "assistant" ? stored : undefined;
  }

  async #requestApproval(raw: ApprovalRequestInput): Promise<ApprovalDecision> {
    const input = approvalRequestInputSchema.parse(raw);
    if (!(await this.#hasNextExisting(input.tool_call_id))) {
      const how =
        this.#deps.approvalMode() === "always-allow"
          ? "always-allow"
          : input.tool_name !== undefined &&
              allowanceCovers(this.#deps.toolAllowances(), input.tool_name, commandAskedAbout(input.payload))
            ? "session-tool"
            : null;
      if (how !== null) {
        // One commit: the part is `running` (fenced) before the side effect starts, with its mark.
        if (this.#deps.markRunning) await this.#deps.markRunning(input.tool_call_id, how);
        else await this.#markAutoApproved(input.tool_call_id, how);
        return withInput({ approved: true, auto_approved: true }, input.payload.validated_input);
      }
    }
    const handle = await this.request({
      type: "approval",
      turn_id: input.turn_id,
      tool_call_id: input.tool_call_id,
      ...(input.tool_name === undefined ? {} : { tool_name: input.tool_name }),
      ...(input.source_type === undefined ? {} : { source_type: input.source_type }),
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(input.description === undefined ? {} : { description: input.description }),
      payload: input.payload,
      response_schema:
        SESSION_APPROVAL_RESPONSE_SCHEMA as unknown as InteractionRequestInput["response_schema"],
    });
    const result = await handle.result;
    const approved =
      result.status === "resolved" &&
      result.response.type === "approval" &&
      result.response.outcome === "resolved" &&
      typeof result.response.payload === "object" &&
      result.response.payload !== null &&
      !Array.isArray(result.response.payload) &&
      result.response.payload.decision === "approved";
    const decision = { approved, auto_approved: false, approval_id: handle.interaction_id };
    if (!approved || result.status !== "resolved") return decision;
    // The stored request (a resumed tool attaches to it) and the stored answer: a replay runs with
    // the same edit the person made.
    const requestPayload = handle.request?.payload ?? input.payload;
    return withInput(decision, approvedInputOf(requestPayload, result.response.payload));
  }

  /** The tool card says the call ran without asking, and why (one published revision). */
  async #markAutoApproved(tool_call_id: string, how: AutoApproval): Promise<void> {
    const message_id = await this.#deps.locateTool(tool_call_id);
    if (!message_id) return;
    await this.#deps.writer.updateAssistant(
      message_id,
      (current) => markToolAutoApproved(current, tool_call_id, how),
      this.#deps.epoch === undefined ? {} : { epoch: this.#deps.epoch },
    );
  }

  /** A resumed tool whose approval was asked before keeps that answer even if the mode changed since. */
  async #hasNextExisting(tool_call_id: string): Promise<boolean> {
    if (!this.#deps.countsOrdinals) return false;
    const message_id = await this.#deps.locateTool(tool_call_id);
    if (!message_id) return false;
    return (
      (await this.#existingAt(message_id, tool_call_id, this.#ordinals.get(tool_call_id) ?? 0)) !== undefined
    );
  }
}

/** The command an `exec` approval asks about (`shell`): an allowance must match it by prefix. */
function commandAskedAbout(payload: ApprovalRequestInput["payload"]): string | undefined {
  return payload.operation === "exec" ? (payload.command ?? "") : undefined;
}

function withInput(decision: ApprovalDecision, input: JsonValue | undefined): ApprovalDecision {
  return input === undefined ? decision : { ...decision, input };
}

function toolInteractions(message: AssistantMessage, tool_call_id: string): Interaction[] {
  const part = message.parts[findToolIndex(message, tool_call_id)];
  return part?.type === "tool" ? (part.interactions ?? []) : [];
}
