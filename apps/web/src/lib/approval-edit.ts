import type { Interaction, JsonValue } from "@parley/sdk";

/**
 * Edit before approve: the approver changes the fields of a request's `validated_input` and
 * approves that instead (`payload.edited_input`). The server checks the edit against the tool's own
 * input schema; the checks here only catch what is wrong on its face (an emptied required text, a
 * number that is not one, JSON that does not parse, an answer over the length limit) before sending.
 */

type JsonObject = { [key: string]: JsonValue };

/** One answer string's limit on the server (longer is refused as invalid input). */
export const EDIT_FIELD_MAX_CHARS = 10_000;

/** Keys whose text is code or a document: edited in a multi-line monospace box. */
const MULTILINE_KEYS = new Set(["content", "command", "script", "body", "text", "query", "sql"]);

export type EditField =
  | { key: string; kind: "text" | "multiline"; original: string }
  | { key: string; kind: "number"; original: number; integer: boolean }
  | { key: string; kind: "boolean"; original: boolean }
  /** Objects, arrays and null: edited as JSON text. */
  | { key: string; kind: "json"; original: JsonValue };

/** What the form holds per key: text for every kind but booleans. */
export type EditDraft = Record<string, string | boolean>;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The editable fields of a `validated_input`, in its key order; null when it is not an object. */
export function readEditFields(validated_input: JsonValue | undefined): EditField[] | null {
  if (!isObject(validated_input)) return null;
  return Object.entries(validated_input).map(([key, value]): EditField => {
    if (typeof value === "string") {
      const multiline = MULTILINE_KEYS.has(key) || value.includes("\n") || value.length > 80;
      return { key, kind: multiline ? "multiline" : "text", original: value };
    }
    if (typeof value === "number")
      return { key, kind: "number", original: value, integer: Number.isInteger(value) };
    if (typeof value === "boolean") return { key, kind: "boolean", original: value };
    return { key, kind: "json", original: value };
  });
}

/** The form's starting values: the input as asked. */
export function initialDraft(fields: readonly EditField[]): EditDraft {
  const draft: EditDraft = {};
  for (const field of fields) {
    if (field.kind === "boolean") draft[field.key] = field.original;
    else if (field.kind === "json") draft[field.key] = JSON.stringify(field.original, null, 2);
    else draft[field.key] = String(field.original);
  }
  return draft;
}

export type EditResult =
  | { ok: true; edited_input: JsonObject; changed: boolean }
  | { ok: false; errors: Record<string, string> };

/** The edited input, or a message per field that cannot be sent as it is. */
export function buildEditedInput(fields: readonly EditField[], draft: EditDraft): EditResult {
  const edited: JsonObject = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = draft[field.key];
    if (field.kind === "boolean") {
      edited[field.key] = raw === true;
      continue;
    }
    const text = typeof raw === "string" ? raw : "";
    if (text.length > EDIT_FIELD_MAX_CHARS) {
      errors[field.key] = `At most ${EDIT_FIELD_MAX_CHARS.toLocaleString("en-US")} characters can be sent`;
      continue;
    }
    if (field.kind === "text" || field.kind === "multiline") {
      if (field.original.trim() !== "" && text.trim() === "")
        errors[field.key] = "Required: it cannot be empty";
      else edited[field.key] = text;
    } else if (field.kind === "number") {
      const value = Number(text);
      if (text.trim() === "" || !Number.isFinite(value)) errors[field.key] = "Enter a number";
      else if (field.integer && !Number.isInteger(value)) errors[field.key] = "Enter a whole number";
      else edited[field.key] = value;
    } else {
      try {
        edited[field.key] = JSON.parse(text) as JsonValue;
      } catch {
        errors[field.key] = "Not valid JSON";
      }
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    edited_input: edited,
    changed: JSON.stringify(edited) !== JSON.stringify(originalOf(fields)),
  };
}

function originalOf(fields: readonly EditField[]): JsonObject {
  return Object.fromEntries(fields.map((field) => [field.key, field.original]));
}

/** The approver's edit, when the answer carried one. */
export function editedInputOf(interaction: Interaction): JsonValue | undefined {
  const payload = interaction.response?.payload;
  return isObject(payload) ? payload.edited_input : undefined;
}

export interface FieldChange {
  key: string;
  /** Undefined when the field was added (before) or removed (after). */
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

/** The fields an edit changed, added or removed, in the request's key order, then added keys. */
export function describeEdit(
  validated_input: JsonValue | undefined,
  edited: JsonValue | undefined,
): FieldChange[] {
  const before = isObject(validated_input) ? validated_input : {};
  const after = isObject(edited) ? edited : {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map((key) => ({ key, before: before[key], after: after[key] }));
}
