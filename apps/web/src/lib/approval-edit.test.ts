import type { Interaction } from "@parley/sdk";
import { describe, expect, it } from "vitest";
import {
  buildEditedInput,
  describeEdit,
  EDIT_FIELD_MAX_CHARS,
  editedInputOf,
  initialDraft,
  readEditFields,
} from "./approval-edit";

describe("approval edit fields", () => {
  it("reads one field per key of the validated input, by JSON type", () => {
    expect(
      readEditFields({ path: "a.md", content: "x", timeout_ms: 500, force: false, tags: ["a"] }),
    ).toEqual([
      { key: "path", kind: "text", original: "a.md" },
      { key: "content", kind: "multiline", original: "x" },
      { key: "timeout_ms", kind: "number", original: 500, integer: true },
      { key: "force", kind: "boolean", original: false },
      { key: "tags", kind: "json", original: ["a"] },
    ]);
    expect(readEditFields({ command: "ls" })).toEqual([
      { key: "command", kind: "multiline", original: "ls" },
    ]);
    expect(readEditFields(["a"])).toBeNull();
    expect(readEditFields(undefined)).toBeNull();
  });

  it("starts from the input as asked and builds the edit from the draft", () => {
    const fields =
      readEditFields({ path: "a.md", content: "x", timeout_ms: 500, force: false, tags: ["a"] }) ?? [];
    const draft = initialDraft(fields);
    expect(draft).toEqual({
      path: "a.md",
      content: "x",
      timeout_ms: "500",
      force: false,
      tags: '[\n  "a"\n]',
    });
    expect(buildEditedInput(fields, draft)).toEqual({
      ok: true,
      changed: false,
      edited_input: { path: "a.md", content: "x", timeout_ms: 500, force: false, tags: ["a"] },
    });
    expect(
      buildEditedInput(fields, { ...draft, path: "b.md", timeout_ms: "750", force: true, tags: "[]" }),
    ).toEqual({
      ok: true,
      changed: true,
      edited_input: { path: "b.md", content: "x", timeout_ms: 750, force: true, tags: [] },
    });
  });

  it("names each field that cannot be sent as it is", () => {
    const fields = readEditFields({ path: "a.md", content: "", timeout_ms: 500, tags: ["a"] }) ?? [];
    expect(buildEditedInput(fields, { path: "  ", content: "", timeout_ms: "1.5", tags: "[oops" })).toEqual({
      ok: false,
      errors: {
        path: "Required: it cannot be empty",
        timeout_ms: "Enter a whole number",
        tags: "Not valid JSON",
      },
    });
    expect(
      buildEditedInput(fields, {
        path: "a",
        content: "x".repeat(EDIT_FIELD_MAX_CHARS + 1),
        timeout_ms: "",
        tags: "1",
      }),
    ).toEqual({
      ok: false,
      errors: { content: "At most 10,000 characters can be sent", timeout_ms: "Enter a number" },
    });
  });
});

describe("what an edit changed", () => {
  it("lists changed, added and removed fields in the request's order", () => {
    expect(
      describeEdit(
        { command: "rm -rf /", cwd: "sub", timeout_ms: 5 },
        { command: "ls", timeout_ms: 5, extra: 1 },
      ),
    ).toEqual([
      { key: "command", before: "rm -rf /", after: "ls" },
      { key: "cwd", before: "sub", after: undefined },
      { key: "extra", before: undefined, after: 1 },
    ]);
    expect(describeEdit({ path: "a" }, { path: "a" })).toEqual([]);
  });

  it("reads the edit from an answered approval", () => {
    const answered = {
      interaction_id: "interaction:1",
      interaction_type: "approval",
      status: "resolved",
      request: {
        interaction_id: "interaction:1",
        turn_id: "turn:1",
        type: "approval",
        source: { type: "tool", tool_call_id: "call_1" },
        payload: { operation: "tool", validated_input: { path: "a" } },
        created_at: 1,
      },
      response: {
        type: "approval",
        outcome: "resolved",
        payload: { decision: "approved", edited_input: { path: "b" } },
      },
    } satisfies Interaction;
    expect(editedInputOf(answered)).toEqual({ path: "b" });
    expect(
      editedInputOf({ ...answered, response: { ...answered.response, payload: { decision: "approved" } } }),
    ).toBe(undefined);
  });
});
