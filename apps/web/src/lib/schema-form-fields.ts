import type { JsonValue } from "@parley/sdk";

/**
 * The fields of a custom Interaction's `response_schema` that the web form can render: an object
 * schema whose properties are strings, numbers, integers, booleans, enums or arrays of enum values.
 * `respond` validates the answer against the full schema on the server (Ajv), so the form only
 * needs to collect values of the right JSON types.
 */
export type SchemaField =
  | { kind: "text"; name: string; label: string; required: boolean }
  | { kind: "number"; name: string; label: string; required: boolean; integer: boolean }
  | { kind: "boolean"; name: string; label: string; required: boolean }
  | { kind: "enum"; name: string; label: string; required: boolean; options: string[] }
  | { kind: "multi-enum"; name: string; label: string; required: boolean; options: string[] };

type SchemaObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringEnum(schema: SchemaObject): string[] | null {
  const values = schema.enum;
  return Array.isArray(values) && values.every((value) => typeof value === "string")
    ? (values as string[])
    : null;
}

/** The renderable fields in property order, or null when the schema has a shape the form cannot render. */
export function readSchemaFields(schema: JsonValue | undefined): SchemaField[] | null {
  if (!isObject(schema) || schema.type !== "object" || !isObject(schema.properties)) return null;
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : [],
  );
  const fields: SchemaField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) return null;
    const label = typeof property.title === "string" ? property.title : name;
    const base = { name, label, required: required.has(name) };
    const options = stringEnum(property);
    if (options !== null) fields.push({ ...base, kind: "enum", options });
    else if (property.type === "string") fields.push({ ...base, kind: "text" });
    else if (property.type === "number" || property.type === "integer")
      fields.push({ ...base, kind: "number", integer: property.type === "integer" });
    else if (property.type === "boolean") fields.push({ ...base, kind: "boolean" });
    else if (property.type === "array" && isObject(property.items) && stringEnum(property.items) !== null)
      fields.push({ ...base, kind: "multi-enum", options: stringEnum(property.items) ?? [] });
    else return null;
  }
  return fields;
}

/** Raw input values by field name, as the form holds them. */
export type SchemaDraft = Record<string, string | boolean | string[]>;

/**
 * The answer payload: empty optional fields are left out; numbers are parsed (a non-number is sent
 * as the text, and the server's schema check names it).
 */
export function buildSchemaPayload(fields: SchemaField[], draft: SchemaDraft): { [key: string]: JsonValue } {
  const payload: { [key: string]: JsonValue } = {};
  for (const field of fields) {
    const value = draft[field.name];
    if (field.kind === "boolean") {
      if (value !== undefined || field.required) payload[field.name] = value === true;
      continue;
    }
    if (field.kind === "multi-enum") {
      if (Array.isArray(value) && (value.length > 0 || field.required)) payload[field.name] = value;
      continue;
    }
    if (typeof value !== "string" || value === "") continue;
    if (field.kind === "number") {
      const parsed = Number(value);
      payload[field.name] = value.trim() !== "" && Number.isFinite(parsed) ? parsed : value;
    } else payload[field.name] = value;
  }
  return payload;
}
