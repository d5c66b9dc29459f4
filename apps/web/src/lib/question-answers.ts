import type { InteractionResponse, Question, QuestionAnswer } from "@parley/sdk";

/** The form state of one question card: what the person picked or typed, keyed by `question_id`. */
export type AnswerDraft = Readonly<Record<string, string | readonly string[]>>;

/**
 * Reads `payload.questions` defensively: the core never validates payloads, so a malformed request
 * renders as "cannot be answered here" instead of crashing the timeline.
 */
export function readQuestions(payload: unknown): Question[] | null {
  if (!payload || typeof payload !== "object" || !("questions" in payload)) return null;
  const { questions } = payload as { questions: unknown };
  if (!Array.isArray(questions) || questions.length === 0) return null;
  const parsed: Question[] = [];
  for (const raw of questions) {
    if (!raw || typeof raw !== "object") return null;
    const { question_id, question, type, options } = raw as Record<string, unknown>;
    if (typeof question_id !== "string" || typeof question !== "string") return null;
    if (type !== "text" && type !== "single_select" && type !== "multi_select") return null;
    if (type === "text") {
      parsed.push({ question_id, question, type });
      continue;
    }
    if (!Array.isArray(options) || options.length === 0) return null;
    const cleanOptions = options.filter(
      (option): option is { value: string; label: string; description?: string } =>
        !!option && typeof option.value === "string" && typeof option.label === "string",
    );
    if (cleanOptions.length !== options.length) return null;
    parsed.push({ question_id, question, type, options: cleanOptions });
  }
  return parsed;
}

export function isQuestionAnswered(question: Question, draft: AnswerDraft): boolean {
  const value = draft[question.question_id];
  if (question.type === "multi_select") return Array.isArray(value) && value.length > 0;
  return typeof value === "string" && value.trim().length > 0;
}

/**
 * Submit is enabled only when every question has an answer, as `respond` refuses incomplete
 * answers.
 */
export function isDraftComplete(questions: readonly Question[], draft: AnswerDraft): boolean {
  return questions.every((question) => isQuestionAnswered(question, draft));
}

export function toggleMultiValue(current: readonly string[] | undefined, value: string): string[] {
  const held = current ?? [];
  return held.includes(value) ? held.filter((item) => item !== value) : [...held, value];
}

/**
 * The `question` response the server expects: every `question_id` exactly once, in question order,
 * option `value`s (never labels), `string[]` for multi-select. Text is sent as typed.
 */
export function buildQuestionResponse(
  questions: readonly Question[],
  draft: AnswerDraft,
  /** Free text beside the answers ("Other"): sent as `payload.note`, omitted when blank. */
  note = "",
): InteractionResponse {
  const answers: QuestionAnswer[] = questions.map((question) => {
    const value = draft[question.question_id];
    if (question.type === "multi_select") {
      const picked = Array.isArray(value) ? value : [];
      const order = (question.options ?? []).map((option) => option.value);
      return {
        question_id: question.question_id,
        value: [...picked].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
      };
    }
    return { question_id: question.question_id, value: typeof value === "string" ? value : "" };
  });
  const trimmed = note.trim();
  return {
    type: "question",
    outcome: "resolved",
    payload: trimmed ? { answers, note: trimmed } : { answers },
  };
}

/** Renders an answered value with the option labels the person saw. */
export function describeAnswer(question: Question, value: unknown): string {
  const labelOf = (raw: string) => question.options?.find((option) => option.value === raw)?.label ?? raw;
  if (Array.isArray(value)) return value.map((item) => labelOf(String(item))).join(", ");
  return typeof value === "string" ? labelOf(value) : JSON.stringify(value);
}
