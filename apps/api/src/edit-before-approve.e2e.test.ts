import { access, readFile } from "node:fs/promises";
import path from "node:path";
import type { JsonValue } from "@parley/session-core";
import { isToolState, isTurnFinish, MutationRecorder } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eEnvironment, startE2eEnvironment } from "./testing/e2e-environment.js";

const approveWith = (interaction_id: string, edited_input: JsonValue) => ({
  interaction_id,
  response: {
    type: "approval",
    outcome: "resolved" as const,
    payload: { decision: "approved", edited_input },
  },
});

describe("edit before approve, against a real API process", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("an invalid edit is refused (still pending); an edited write_file approval writes the edited path and content", async () => {
    const member = await environment.createMember("editor");
    const session = await member.client().sessions.create({ title: "edit" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("write todo.md: buy milk");
    await feed.waitFor(isToolState("waiting-user"));

    const [request] = await session.interactions();
    expect(request).toMatchObject({
      type: "approval",
      turn_id,
      source: { tool_name: "write_file" },
      payload: { operation: "tool", validated_input: { path: "todo.md", content: "buy milk" } },
    });
    const interaction_id = request?.interaction_id ?? "";

    const breaking: JsonValue[] = [
      { path: "", content: "x" },
      { path: "todo.md" },
      { path: "todo.md", content: "x", mode: 493 },
      { path: "todo.md", content: 7 },
      "todo.md",
    ];
    for (const edited_input of breaking) {
      await expect(session.respond(approveWith(interaction_id, edited_input))).rejects.toMatchObject({
        code: "interaction_invalid_response",
      });
    }
    expect((await session.interactions()).map((pending) => pending.interaction_id)).toEqual([interaction_id]);

    const edit = { path: "notes/edited.md", content: "buy bread" };
    expect(await session.respond(approveWith(interaction_id, edit))).toEqual({
      status: "resolved",
      interaction_id,
      response: approveWith(interaction_id, edit).response,
    });
    const completed = await feed.waitFor(isToolState("completed"));
    const tool = completed.variant === "part" && completed.part.type === "tool" ? completed.part : null;
    expect(tool?.output).toEqual({ success: true, path: "notes/edited.md", bytes_written: 9, created: true });
    // The Interaction keeps the request as asked, the edit, and who made it.
    expect(tool?.interactions).toHaveLength(1);
    expect(tool?.interactions?.[0]).toMatchObject({
      status: "resolved",
      responded_by: member.user_id,
      request: { payload: { validated_input: { path: "todo.md", content: "buy milk" } } },
      response: { payload: { decision: "approved", edited_input: edit } },
    });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ turn_id, status: "completed" });

    const workspace = path.join(environment.api.workspace_root, session.id);
    expect(await readFile(path.join(workspace, "notes", "edited.md"), "utf8")).toBe("buy bread");
    await expect(access(path.join(workspace, "todo.md"))).rejects.toMatchObject({ code: "ENOENT" });
    feed.stop();
  });
});
