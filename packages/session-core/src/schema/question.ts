import { z } from "zod";

const nonBlank = z.string().trim().min(1);

export const questionOptionSchema = z.strictObject({
  value: nonBlank,
  label: nonBlank,
  description: nonBlank.optional(),
});
export type QuestionOption = z.infer<typeof questionOptionSchema>;

const textQuestionInputSchema = z.strictObject({ question: nonBlank, type: z.literal("text") });
const selectQuestionInputSchema = z.strictObject({
  question: nonBlank,
  type: z.enum(["single_select", "multi_select"]),
  options: z
    .array(questionOptionSchema)
    .min(1)
    // An answer names an option by its value, so two options with one value could not be told apart.
    .refine((options) => new Set(options.map((option) => option.value)).size === options.length, {
      message: "option values must be distinct",
    }),
});

/** The model-facing input of `ask_question`. Strict: no `question_id`, no options on text questions. */
export const askQuestionInputSchema = z.strictObject({
  title: nonBlank,
  questions: z
    .array(z.discriminatedUnion("type", [textQuestionInputSchema, selectQuestionInputSchema]))
    .min(1)
    .max(50),
});
export type AskQuestionInput = z.infer<typeof askQuestionInputSchema>;

export const questionSchema = z.object({
  question_id: z.string(),
  question: z.string(),
  type: z.enum(["text", "single_select", "multi_select"]),
  options: z.array(questionOptionSchema).optional(),
});
export type Question = z.infer<typeof questionSchema>;

export const questionPayloadSchema = z.object({ questions: z.array(questionSchema) });
export type QuestionPayload = z.infer<typeof questionPayloadSchema>;

export const questionAnswerSchema = z.strictObject({
  question_id: z.string(),
  value: z.union([z.string(), z.array(z.string())]),
});
export type QuestionAnswer = z.infer<typeof questionAnswerSchema>;

export const questionResponsePayloadSchema = z.strictObject({
  answers: z.array(questionAnswerSchema),
  note: z.string().optional(),
});
export type QuestionResponsePayload = z.infer<typeof questionResponsePayloadSchema>;

/** The tool result of `ask_question`, what the model sees and what is stored as `tool.output`. */
export interface AskQuestionResult {
  status: "resolved";
  answers: QuestionAnswer[];
  note?: string;
}
