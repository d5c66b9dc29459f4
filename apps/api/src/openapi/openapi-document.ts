import { PARLEY_CODES, sessionMutationSchema } from "@parley/session-core";
import type { AnyRouter } from "@trpc/server";
import { z } from "zod";

type JsonSchema = { [key: string]: unknown };

interface ProcedureDefinition {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
  output?: unknown;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * A procedure schema as OpenAPI 3.1 (JSON Schema 2020-12): zod's own converter, with the
 * schema's local `$defs` (recursive shapes such as JSON values) moved to `components.schemas` under
 * a per-procedure prefix so every `$ref` resolves from the document root.
 */
function toOpenApiSchema(
  schema: z.ZodType,
  io: "input" | "output",
  prefix: string,
  components: Record<string, JsonSchema>,
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
  }) as JsonSchema;
  const {
    $schema: _ignored,
    $defs,
    ...rest
  } = converted as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rename = (name: string) => `${prefix}.${name}`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== "object" || value === null) return value;
    const out: JsonSchema = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") {
        out[key] =
          inner === "#"
            ? `#/components/schemas/${prefix}`
            : inner.replace(
                /^#\/\$defs\/(.+)$/,
                (_m, name: string) => `#/components/schemas/${rename(name)}`,
              );
      } else out[key] = rewrite(inner);
    }
    return out;
  };
  for (const [name, definition] of Object.entries($defs ?? {}))
    components[rename(name)] = rewrite(definition) as JsonSchema;
  const body = rewrite(rest) as JsonSchema;
  // A self-reference (`#`) needs the root itself as a component.
  if (JSON.stringify(body).includes(`"#/components/schemas/${prefix}"`)) {
    components[prefix] = body;
    return { $ref: `#/components/schemas/${prefix}` };
  }
  return body;
}

const ERROR_RESPONSE: JsonSchema = {
  description: "A tRPC error; `error.data.parley_code` is the domain code",
  content: {
    "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } },
  },
};

/** What a client must know about `live: true` (DESIGN §10.6, ADR 0007); also in docs/http.md. */
const LIVE_MUTATION_NOTE =
  "A mutation with `live: true` (a text or reasoning delta, a part still streaming, an assistant message before its first checkpoint) is not committed: its `event_id` is that of the durable mutation it follows, not a new one, and it is never replayed. Apply it on top of that state; on reconnect (resume from the last `event_id`) or reload, drop what live mutations built: the next durable mutations and `session.messages` carry their persisted form.";

/**
 * The OpenAPI 3.1 description of every query and mutation of `router`, over tRPC's HTTP wire
 * format (no transformer): a query is `GET /trpc/<name>?input=<JSON>`, a mutation is
 * `POST /trpc/<name>` with the input as the JSON body, and a success is `{ "result": { "data": … } }`.
 * Subscriptions are WebSocket/SSE streams and are listed only in the description.
 */
export function createOpenApiDocument(router: AnyRouter, options: { version: string }): JsonSchema {
  const procedures = (router._def as unknown as { procedures: Record<string, { _def: ProcedureDefinition }> })
    .procedures;
  const components: Record<string, JsonSchema> = {
    ErrorEnvelope: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["message", "code", "data"],
          properties: {
            message: { type: "string" },
            code: { type: "integer" },
            data: {
              type: "object",
              properties: {
                code: { type: "string" },
                httpStatus: { type: "integer" },
                path: { type: "string" },
                parley_code: { type: "string", enum: [...PARLEY_CODES] },
              },
            },
          },
        },
      },
    },
  };
  const paths: Record<string, JsonSchema> = {};
  const subscriptions: string[] = [];
  for (const [name, procedure] of Object.entries(procedures).sort(([a], [b]) => a.localeCompare(b))) {
    const definition = procedure._def;
    if (definition.type === "subscription") {
      subscriptions.push(name);
      continue;
    }
    const input = definition.inputs[0];
    const inputSchema = isZodSchema(input)
      ? toOpenApiSchema(input, "input", `${name}.input`, components)
      : {};
    const outputSchema = isZodSchema(definition.output)
      ? toOpenApiSchema(definition.output, "output", `${name}.output`, components)
      : {};
    const success = {
      description: "Success",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["result"],
            properties: {
              result: { type: "object", required: ["data"], properties: { data: outputSchema } },
            },
          },
        },
      },
    };
    const responses = { "200": success, default: ERROR_RESPONSE };
    const operation =
      definition.type === "query"
        ? {
            operationId: name,
            tags: [name.split(".")[0]],
            parameters: [
              {
                name: "input",
                in: "query",
                required: false,
                description: "The procedure's input, JSON-encoded (omit it for an empty input)",
                content: { "application/json": { schema: inputSchema } },
              },
            ],
            responses,
          }
        : {
            operationId: name,
            tags: [name.split(".")[0]],
            requestBody: { required: false, content: { "application/json": { schema: inputSchema } } },
            responses,
          };
    paths[`/trpc/${name}`] = { [definition.type === "query" ? "get" : "post"]: operation };
  }
  components.SessionMutation = {
    ...toOpenApiSchema(sessionMutationSchema, "output", "SessionMutation", components),
    description: LIVE_MUTATION_NOTE,
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Parley API",
      version: options.version,
      description: [
        "Parley's tRPC procedures over plain HTTP (tRPC's wire format, no transformer).",
        "Every procedure needs `Authorization: Bearer <token>`.",
        "Queries: `GET /trpc/<name>?input=<url-encoded JSON>`. Mutations: `POST /trpc/<name>` with the JSON input as body.",
        'Answers are `{ "result": { "data": <output> } }`; errors `{ "error": { …, "data": { "parley_code" } } }`.',
        `Subscriptions (WebSocket on /trpc, or SSE): ${subscriptions.join(", ")}.`,
        "`session.onMutation` sends `SessionMutation`s (components), each tracked by its `event_id` (the SSE `id`).",
        LIVE_MUTATION_NOTE,
      ].join("\n"),
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
  };
}
