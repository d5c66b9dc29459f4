import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../schema/messages.js";
import { FILE_PART_MAX_BYTES } from "../../schema/parts.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";

/** Files and sources a model streams are kept, persisted and published as parts of its message. */
describe("file and source stream parts", () => {
  it("a generated file and cited sources become parts, in stream order, and are published", async () => {
    const bytes = new Uint8Array([137, 80, 78, 71]);
    const model = createScriptedModel([
      [
        { text: "Here is the chart." },
        { output: { type: "file", mediaType: "image/png", data: bytes } },
        { output: { type: "file", mediaType: "text/csv", data: "YSxiCjEsMgo=" } },
        {
          output: {
            type: "source",
            sourceType: "url",
            id: "src-1",
            url: "https://example.com/q3",
            title: "Q3",
          },
        },
        {
          output: {
            type: "source",
            sourceType: "document",
            id: "src-2",
            mediaType: "application/pdf",
            title: "Report",
            filename: "report.pdf",
          },
        },
      ],
    ]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await (await session.prompt({ query: "chart it" })).finished;
    // What subscribers saw: the parts in the published message snapshots and part mutations.
    const published = new Set<string>();
    for (const mutation of harness.mutations(session.id)) {
      const parts =
        mutation.variant === "part"
          ? [mutation.part]
          : mutation.variant === "message" && mutation.message.type === "assistant"
            ? mutation.message.parts
            : [];
      for (const part of parts)
        if (part.type === "file" || part.type === "source") published.add(part.part_id);
    }

    const assistant = (await harness.messages(session.id)).find(
      (message): message is AssistantMessage => message.type === "assistant",
    );
    const parts = assistant?.parts.filter((part) => part.type === "file" || part.type === "source");
    expect(parts?.map(({ part_id: _id, sequence: _sequence, ...rest }) => rest)).toEqual([
      { type: "file", media_type: "image/png", size_bytes: 4, url: "data:image/png;base64,iVBORw==" },
      { type: "file", media_type: "text/csv", size_bytes: 8, url: "data:text/csv;base64,YSxiCjEsMgo=" },
      { type: "source", source_id: "src-1", source_type: "url", url: "https://example.com/q3", title: "Q3" },
      {
        type: "source",
        source_id: "src-2",
        source_type: "document",
        media_type: "application/pdf",
        title: "Report",
        filename: "report.pdf",
      },
    ]);
    expect([...published].sort()).toEqual(parts?.map((part) => part.part_id).sort());
  });

  it("a file over the size limit keeps its type and size, not its data", async () => {
    const model = createScriptedModel([
      [{ output: { type: "file", mediaType: "image/png", data: new Uint8Array(FILE_PART_MAX_BYTES + 1) } }],
    ]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await (await session.prompt({ query: "big one" })).finished;
    const assistant = (await harness.messages(session.id)).find(
      (message): message is AssistantMessage => message.type === "assistant",
    );
    expect(assistant?.parts.find((part) => part.type === "file")).toMatchObject({
      media_type: "image/png",
      size_bytes: FILE_PART_MAX_BYTES + 1,
      omitted: true,
    });
    expect(assistant?.parts.find((part) => part.type === "file")).not.toHaveProperty("url");
  });
});
