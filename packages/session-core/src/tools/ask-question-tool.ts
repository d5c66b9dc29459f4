import { createRandomIdSource } from "../ports/clock.js";
import type { JsonValue } from "../schema/json.js";
import type { AskQuestionInput } from "../schema/question.js";
import {
  type AskQuestionResult,
  askQuestionInputSchema,
  type Question,
  questionPayloadSchema,
} from "../schema/question.js";
import { type AgentTool, define_agent_tool } from "./define-agent-tool.js";

const questionIds = createRandomIdSource();

export const ASK_QUESTION_DESCRIPTION =
  "Ask the user one or more questions when missing information would materially change the outcome. The call waits for every answer, then returns them so you can continue the same task. Do not use it for information that can be inferred safely. For single_select and multi_select questions, every option MUST contain both a machine-readable value and a user-visible label; never omit value or use label as value. Example: { value: 'cn', label: '中国' }.";

/**
 * The optional `ask_question` tool (docs/behaviour.md#questions-ask_question): register it as
 * `tools: { ask_question: AskQuestionsTool }`. It asks one `question` Interaction and returns the
 * answers in question order. `respond()` has already validated them strictly (G38, G40), so the
 * tool only reads them back.
 */
export const AskQuestionsTool: AgentTool<AskQuestionInput, JsonValue> = define_agent_tool({
  description: ASK_QUESTION_DESCRIPTION,
  input_schema: askQuestionInputSchema,
  // It only asks and returns the answer: a re-run attaches to the same Interaction, so it needs no
  // checkpoint of its own.
  side_effects: false,
  async execute(input, context) {
    if (!context?.interactions || !context.turn_id || !context.tool_call_id) {
      throw new Error("ask_question requires an active Session tool execution context");
    }
    const questions: Question[] = input.questions.map((question) => ({
      question_id: `question:${questionIds.next()}`,
      ...question,
    }));
    const handle = await context.interactions.request({
      type: "question",
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      tool_name: "ask_question",
      title: input.title,
      payload: { questions } as unknown as JsonValue,
    });
    const result = await handle.result;
    if (result.status === "cancelled") throw new Error(`ask_question was cancelled: ${result.reason}`);
    if (
      result.status !== "resolved" ||
      result.response.type !== "question" ||
      result.response.outcome !== "resolved"
    ) {
      throw new Error("ask_question received an incompatible Interaction response");
    }
    // A resumed call attaches to the Interaction asked before the restart: read its questions.
    const asked = questionPayloadSchema.safeParse(handle.request?.payload);
    return readAnswers(
      asked.success ? asked.data.questions : questions,
      result.response.payload,
    ) as unknown as JsonValue;
  },
});

function readAnswers(questions: Question[], payload: JsonValue): AskQuestionResult {
  const record = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? payload : {};
  const answers = Array.isArray(record.answers) ? record.answers : [];
  const byId = new Map<string, string | string[]>();
  for (const answer of answers) {
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) continue;
    const { question_id, value } = answer;
    if (typeof question_id === "string" && (typeof value === "string" || Array.isArray(value))) {
      byId.set(question_id, value as string | string[]);
    }
  }
  const ordered = questions.map((question) => {
    const value = byId.get(question.question_id);
    if (value === undefined) throw new Error(`ask_question answer is missing: ${question.question_id}`);
    return { question_id: question.question_id, value };
  });
  const note = typeof record.note === "string" && record.note.trim().length > 0 ? record.note : undefined;
  return note === undefined
    ? { status: "resolved", answers: ordered }
    : { status: "resolved", answers: ordered, note };
}
