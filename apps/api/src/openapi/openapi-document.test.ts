import { describe, expect, it } from "vitest";
import { appRouter } from "../router.js";
import { createOpenApiDocument } from "./openapi-document.js";

describe("the OpenAPI document", () => {
  const document = createOpenApiDocument(appRouter, { version: "test" }) as {
    info: { description: string };
    components: { schemas: Record<string, { description?: string }> };
  };

  it("describes live mutations: not committed, the id of the event they follow, never replayed, dropped on reconnect", () => {
    const { description } = document.info;
    expect(description).toContain("session.onMutation");
    for (const words of [
      "`live: true`",
      "not committed",
      "its `event_id` is that of the durable mutation it follows",
      "never replayed",
      "on reconnect (resume from the last `event_id`) or reload, drop what live mutations built",
    ]) {
      expect(description).toContain(words);
      expect(document.components.schemas.SessionMutation?.description).toContain(words);
    }
  });

  it("has the mutation's schema, with its live flag, as a component", () => {
    const schema = JSON.stringify(document.components.schemas.SessionMutation);
    expect(schema).toContain('"live":{"type":"boolean","const":true}');
    expect(schema).toContain('"delta"');
  });
});
