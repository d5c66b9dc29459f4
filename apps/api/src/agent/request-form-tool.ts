import { type AgentTool, define_agent_tool, type JsonValue, jsonValueSchema } from "@parley/session-core";
import { z } from "zod";

/**
 * The Interaction type of a form: a custom type raised with the generic `interactions.request`
 * (docs/behaviour.md#custom-interaction-types).
 */
export const FORM_INTERACTION_TYPE = "parley:form";

const requestFormInputSchema = z.strictObject({
  title: z.string().min(1).max(200),
  description: z.string().max(2_000).optional(),
  /** JSON Schema of the answer; clients render a form from it and `respond` enforces it. */
  response_schema: z.record(z.string(), jsonValueSchema),
});

/**
 * Asks the user to fill in a form described by a JSON Schema, through the generic
 * `interactions.request` with a `response_schema` (docs/behaviour.md#custom-interaction-types), and
 * returns the answer. The web app and the inbox render the form from the schema alone: a new form
 * needs no web change.
 */
export const RequestFormTool: AgentTool<
  z.infer<typeof requestFormInputSchema>,
  JsonValue
> = define_agent_tool({
  description:
    "Ask the user to fill in a structured form. `response_schema` is a JSON Schema object whose properties are the fields (string, number, integer, boolean, enum, array of enum). Only these keywords are accepted: type, properties, required, items, enum, const, title, description, default, minimum, maximum, minLength, maxLength, minItems, maxItems, format (date, time, date-time, email, uri, uuid), pattern (RE2 syntax), additionalProperties: false, uniqueItems; at most 16 KiB and 8 levels deep. Returns the filled-in values.",
  input_schema: requestFormInputSchema,
  // It only asks and returns the answer: a re-run attaches to the same Interaction.
  side_effects: false,
  async execute(input, context) {
    const handle = await context.interactions.request({
      type: FORM_INTERACTION_TYPE,
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      tool_name: context.tool_name,
      title: input.title,
      ...(input.description === undefined ? {} : { description: input.description }),
      payload: {},
      response_schema: input.response_schema,
    });
    const result = await handle.result;
    if (result.status === "resolved") return result.response.payload;
    if (result.status === "cancelled") throw new Error(`The form was cancelled: ${result.reason}`);
    if (result.status === "denied") throw new Error("Interaction denied");
    throw new Error(result.error);
  },
});
