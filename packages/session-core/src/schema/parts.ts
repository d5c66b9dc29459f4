import { z } from "zod";
import { interactionSchema } from "./interaction.js";
import { jsonValueSchema } from "./json.js";

const partBase = { part_id: z.string(), sequence: z.number().int().positive() };

export const textPartSchema = z.object({
  ...partBase,
  type: z.literal("text"),
  text: z.string(),
  state: z.enum(["streaming", "done"]),
});
export type TextPart = z.infer<typeof textPartSchema>;

export const reasoningPartSchema = z.object({
  ...partBase,
  type: z.literal("reasoning"),
  text: z.string(),
  state: z.enum(["streaming", "done"]),
});
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;

export const stepStartPartSchema = z.object({ ...partBase, type: z.literal("step-start") });
export type StepStartPart = z.infer<typeof stepStartPartSchema>;

export const toolStateSchema = z.enum([
  "input-streaming",
  "ready",
  "waiting-user",
  "running",
  "completed",
  "failed",
]);
export type ToolState = z.infer<typeof toolStateSchema>;

/**
 * A tool call and its lifecycle. `part_id` is `tool:<tool_call_id>` and never changes; every state
 * change of the call, including each change of an embedded Interaction, is one new revision of the
 * owning assistant message and one `part` mutation of this part.
 */
export const toolPartSchema = z.object({
  ...partBase,
  type: z.literal("tool"),
  tool_call_id: z.string(),
  tool_name: z.string(),
  state: toolStateSchema,
  input_text: z.string().optional(),
  input: jsonValueSchema.optional(),
  output: jsonValueSchema.optional(),
  error: z.string().optional(),
  title: z.string().optional(),
  interactions: z.array(interactionSchema).optional(),
  /**
   * Parley: the call ran without asking because the session's approval mode was `always-allow`,
   * or because a person allowed this tool for the rest of the session (`session-tool`).
   */
  auto_approved: z.enum(["always-allow", "session-tool"]).optional(),
});
export type ToolPart = z.infer<typeof toolPartSchema>;

/** Files a model produced are kept inline up to this size; a larger one is described only. */
export const FILE_PART_MAX_BYTES = 256 * 1024;

/**
 * A file the model produced (e.g. an image), as a `data:` URL clients can offer for download. Over
 * `FILE_PART_MAX_BYTES` the data is not kept (`omitted: true`): it travels with every message read,
 * every `message` mutation and every prompt of the Turn, so a large file would cost again and again.
 */
export const filePartSchema = z.object({
  ...partBase,
  type: z.literal("file"),
  media_type: z.string(),
  size_bytes: z.number().int().nonnegative(),
  url: z.string().optional(),
  omitted: z.literal(true).optional(),
});
export type FilePart = z.infer<typeof filePartSchema>;

/** A source the model cited: a web page (`url`) or a document it was given (`document`). */
export const sourcePartSchema = z.object({
  ...partBase,
  type: z.literal("source"),
  source_type: z.enum(["url", "document"]),
  source_id: z.string(),
  url: z.string().optional(),
  title: z.string().optional(),
  media_type: z.string().optional(),
  filename: z.string().optional(),
});
export type SourcePart = z.infer<typeof sourcePartSchema>;

export const assistantPartSchema = z.discriminatedUnion("type", [
  textPartSchema,
  reasoningPartSchema,
  toolPartSchema,
  stepStartPartSchema,
  filePartSchema,
  sourcePartSchema,
]);
export type AssistantPart = z.infer<typeof assistantPartSchema>;

export const userTextPartSchema = z.object({
  part_id: z.string(),
  type: z.literal("text"),
  text: z.string(),
  state: z.literal("done"),
});
export type UserTextPart = z.infer<typeof userTextPartSchema>;
