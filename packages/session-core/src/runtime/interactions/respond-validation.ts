import { ParleyError } from "../../errors.js";
import type { Interaction, InteractionResponse } from "../../schema/interaction.js";
import type { JsonValue } from "../../schema/json.js";
import { type Question, questionPayloadSchema } from "../../schema/question.js";
import { assertEditAllowed } from "./approval-edit.js";
import { assertMatchesResponseSchema } from "./response-schema-validation.js";

/** Limits on answers (docs/behaviour.md#limits). */
const MAX_ANSWER_LENGTH = 10_000;
const MAX_ANSWERS = 50;

function invalid(message: string): ParleyError {
  return new ParleyError("interaction_invalid_response", message);
}

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Everything `respond()` checks against the stored Interaction before anything is committed
 * (docs/behaviour.md#answering-an-interaction-respond). Runs inside the write transition, so a
 * responder that lost a race re-checks against the state the winner committed and gets
 * `interaction_not_pending`.
 */
export function assertRespondable(interaction: Interaction, response: InteractionResponse): void {
  if (interaction.status !== "pending") {
    throw new ParleyError(
      "interaction_not_pending",
      `Session Interaction is already ${interaction.status}: ${interaction.interaction_id}`,
    );
  }
  if (response.type !== interaction.request.type) {
    throw new ParleyError("interaction_type_mismatch", "Session Interaction response type mismatch");
  }
  if (interaction.request.type === "approval") {
    assertApprovalResponse(response);
    assertEditAllowed(interaction, response);
  }
  if (interaction.request.type === "question" && response.outcome === "resolved") {
    assertQuestionAnswers(interaction, response.payload);
  }
  const schema = interaction.request.response_schema;
  const custom = interaction.request.type !== "approval" && interaction.request.type !== "question";
  if (custom && schema !== undefined && response.outcome === "resolved") {
    assertMatchesResponseSchema(schema, response.payload);
  }
}

/** The decision is required and must agree with the outcome (G27). */
function assertApprovalResponse(response: InteractionResponse): void {
  const decision = isRecord(response.payload) ? response.payload.decision : undefined;
  if (decision !== "approved" && decision !== "denied") {
    throw invalid("Session Interaction approval response requires payload.decision approved or denied");
  }
  const expected = response.outcome === "resolved" ? "approved" : "denied";
  if (decision !== expected) {
    throw invalid(
      `Session Interaction approval decision ${decision} disagrees with outcome ${response.outcome}`,
    );
  }
  const reason = isRecord(response.payload) ? response.payload.reason : undefined;
  if (reason !== undefined && typeof reason !== "string") {
    throw invalid("Session Interaction approval reason must be a string");
  }
  // Parley: `scope: "session"` on an approval allows the same tool for the rest of the session.
  const scope = isRecord(response.payload) ? response.payload.scope : undefined;
  if (scope !== undefined && scope !== "once" && scope !== "session") {
    throw invalid("Session Interaction approval scope must be once or session");
  }
  if (scope === "session" && decision !== "approved") {
    throw invalid("Session Interaction approval scope session needs decision approved");
  }
}

/**
 * Strict answers (docs/behaviour.md#questions-ask_question): every question exactly once, no extras
 * or duplicates, `text` and `single_select` take a string, `multi_select` an array of distinct
 * strings, select values among the option values. Nothing is normalised.
 */
export function assertQuestionAnswers(interaction: Interaction, payload: JsonValue): void {
  const parsedRequest = questionPayloadSchema.safeParse(interaction.request.payload);
  if (!parsedRequest.success)
    throw invalid(`Question Interaction has no valid questions: ${interaction.interaction_id}`);
  const questions = parsedRequest.data.questions;
  if (!isRecord(payload)) throw invalid(`ask_question expected ${questions.length} answers but received 0`);
  for (const key of Object.keys(payload)) {
    if (key !== "answers" && key !== "note")
      throw invalid(`ask_question response has an unknown field: ${key}`);
  }
  if (payload.note !== undefined && typeof payload.note !== "string")
    throw invalid("ask_question note must be a string");
  const answers = Array.isArray(payload.answers) ? payload.answers : [];
  if (answers.length > MAX_ANSWERS) throw invalid(`ask_question accepts at most ${MAX_ANSWERS} answers`);
  if (answers.length !== questions.length) {
    throw invalid(`ask_question expected ${questions.length} answers but received ${answers.length}`);
  }
  const byId = new Map<string, JsonValue>();
  for (const answer of answers) {
    if (!isRecord(answer) || typeof answer.question_id !== "string")
      throw invalid("ask_question answer requires question_id");
    for (const key of Object.keys(answer)) {
      if (key !== "question_id" && key !== "value") {
        throw invalid(`ask_question answer has an unknown field: ${answer.question_id} -> ${key}`);
      }
    }
    if (byId.has(answer.question_id)) throw invalid(`Duplicate ask_question answer: ${answer.question_id}`);
    byId.set(answer.question_id, answer.value ?? null);
  }
  for (const question of questions) {
    if (!byId.has(question.question_id))
      throw invalid(`ask_question answer is missing: ${question.question_id}`);
    assertAnswerValue(question, byId.get(question.question_id) ?? null);
  }
}

function assertAnswerValue(question: Question, value: JsonValue): void {
  const id = question.question_id;
  if (question.type === "multi_select") {
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      throw invalid(`ask_question answer must be an array of strings: ${id}`);
    }
    const seen = new Set<string>();
    for (const item of value as string[]) {
      if (seen.has(item)) throw invalid(`Duplicate ask_question option: ${id} -> ${item}`);
      seen.add(item);
      assertOption(question, item);
    }
    return;
  }
  if (typeof value !== "string") throw invalid(`ask_question answer must be a string: ${id}`);
  if (value.length > MAX_ANSWER_LENGTH)
    throw invalid(`ask_question answer is longer than ${MAX_ANSWER_LENGTH} characters: ${id}`);
  if (question.type === "single_select") assertOption(question, value);
}

function assertOption(question: Question, value: string): void {
  if (!(question.options ?? []).some((option) => option.value === value)) {
    throw invalid(`ask_question answer is not a valid option: ${question.question_id} -> ${value}`);
  }
}
