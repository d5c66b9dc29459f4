import { describe, expect, it } from "vitest";
import { T0 } from "../fixtures.js";
import { type ConformanceContext, createSession } from "./context.js";

export function describeSessionConformance(context: ConformanceContext): void {
  describe("sessions", () => {
    it("round-trips a session record", async () => {
      const record = await createSession(context, "session:a", {
        title: "deploy",
        workspace_id: "project",
        approval_mode: "always-allow",
        effective_approval_mode: "ask",
        tool_allowances: [{ tool_name: "shell", command_prefix: "npm test" }, { tool_name: "write_file" }],
        effective_tool_allowances: [{ tool_name: "write_file" }],
        model_id: "model:b",
        effective_model_id: "model:a",
        closed_at: T0 + 5,
      });
      expect(await context.store.getSession("session:a")).toStrictEqual(record);
    });

    it("answers null for an unknown session", async () => {
      expect(await context.store.getSession("session:missing")).toBeNull();
    });

    it("rejects creating a session twice and keeps the first record", async () => {
      const first = await createSession(context, "session:a", { title: "first" });
      await expect(createSession(context, "session:a", { title: "second" })).rejects.toThrow();
      expect(await context.store.getSession("session:a")).toStrictEqual(first);
    });

    it("lists sessions newest first (created_at, then session_id descending) in exact pages", async () => {
      await createSession(context, "session:a", { created_at: T0 + 1 });
      await createSession(context, "session:b", { created_at: T0 + 3 });
      await createSession(context, "session:c", { created_at: T0 + 3 });
      await createSession(context, "session:d", { created_at: T0 + 2 });
      await createSession(context, "session:e", { created_at: T0 + 5 });
      const ids: string[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await context.store.listSessions({ limit: 2, ...(cursor ? { cursor } : {}) });
        ids.push(page.items.map((item) => item.session_id));
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      expect(ids).toEqual([["session:e", "session:c"], ["session:b", "session:d"], ["session:a"]]);
    });

    it("returns a null cursor when the last page is exactly full", async () => {
      for (const [index, id] of ["session:a", "session:b", "session:c", "session:d"].entries()) {
        await createSession(context, id, { created_at: T0 + index });
      }
      const first = await context.store.listSessions({ limit: 2 });
      expect(first.items.map((item) => item.session_id)).toEqual(["session:d", "session:c"]);
      expect(first.next_cursor).not.toBeNull();
      const second = await context.store.listSessions({ limit: 2, cursor: first.next_cursor ?? "" });
      expect(second.items.map((item) => item.session_id)).toEqual(["session:b", "session:a"]);
      expect(second.next_cursor).toBeNull();
      expect(await context.store.listSessions({ limit: 10 })).toMatchObject({ next_cursor: null });
    });

    it("continues after the cursor's position even when a newer session was created in between", async () => {
      for (const [index, id] of ["session:a", "session:b", "session:c"].entries()) {
        await createSession(context, id, { created_at: T0 + index });
      }
      const first = await context.store.listSessions({ limit: 2 });
      expect(first.items.map((item) => item.session_id)).toEqual(["session:c", "session:b"]);
      await createSession(context, "session:z", { created_at: T0 + 10 });
      const second = await context.store.listSessions({ limit: 2, cursor: first.next_cursor ?? "" });
      expect(second.items.map((item) => item.session_id)).toEqual(["session:a"]);
      expect(second.next_cursor).toBeNull();
    });

    it("filters sessions by owner across pages", async () => {
      await createSession(context, "session:a", { owner_id: "user:1", created_at: T0 + 1 });
      await createSession(context, "session:b", { owner_id: "user:2", created_at: T0 + 2 });
      await createSession(context, "session:c", { owner_id: "user:1", created_at: T0 + 3 });
      await createSession(context, "session:d", { owner_id: "user:1", created_at: T0 + 4 });
      const first = await context.store.listSessions({ owner_id: "user:1", limit: 2 });
      expect(first.items.map((item) => item.session_id)).toEqual(["session:d", "session:c"]);
      const second = await context.store.listSessions({
        owner_id: "user:1",
        limit: 2,
        cursor: first.next_cursor ?? "",
      });
      expect(second.items.map((item) => item.session_id)).toEqual(["session:a"]);
      expect(second.next_cursor).toBeNull();
      expect(await context.store.listSessions({ owner_id: "user:none", limit: 5 })).toStrictEqual({
        items: [],
        next_cursor: null,
      });
    });

    it("keeps a null model_id (the agent's own model) as null", async () => {
      const record = await createSession(context, "session:a", { model_id: null, effective_model_id: null });
      expect(await context.store.getSession("session:a")).toStrictEqual(record);
    });

    it("filters sessions by a title substring, case-insensitively and literally, across pages", async () => {
      await createSession(context, "session:a", { title: "Deploy docs", created_at: T0 + 1 });
      await createSession(context, "session:b", { title: "read logs", created_at: T0 + 2 });
      await createSession(context, "session:c", {
        title: "DEPLOY prod",
        owner_id: "user:2",
        created_at: T0 + 3,
      });
      await createSession(context, "session:d", { title: "redeploy 100%_", created_at: T0 + 4 });
      const first = await context.store.listSessions({ title_contains: "deploy", limit: 2 });
      expect(first.items.map((item) => item.session_id)).toEqual(["session:d", "session:c"]);
      const second = await context.store.listSessions({
        title_contains: "deploy",
        limit: 2,
        cursor: first.next_cursor ?? "",
      });
      expect(second).toMatchObject({ next_cursor: null });
      expect(second.items.map((item) => item.session_id)).toEqual(["session:a"]);
      const owned = await context.store.listSessions({
        title_contains: "DePlOy",
        owner_id: "user:2",
        limit: 5,
      });
      expect(owned.items.map((item) => item.session_id)).toEqual(["session:c"]);
      const literal = await context.store.listSessions({ title_contains: "0%_", limit: 5 });
      expect(literal.items.map((item) => item.session_id)).toEqual(["session:d"]);
      expect((await context.store.listSessions({ title_contains: "%", limit: 5 })).items).toHaveLength(1);
      expect((await context.store.listSessions({ title_contains: "_", limit: 5 })).items).toHaveLength(1);
      expect(await context.store.listSessions({ title_contains: "nothing", limit: 5 })).toStrictEqual({
        items: [],
        next_cursor: null,
      });
    });

    it("applies a session_patch and leaves every other field as it was", async () => {
      const record = await createSession(context, "session:a", {
        model_id: "model:a",
        effective_model_id: "model:a",
      });
      const result = await context.store.commit({
        session_id: "session:a",
        session_patch: {
          title: "renamed",
          approval_mode: "always-allow",
          effective_approval_mode: "always-allow",
          tool_allowances: [{ tool_name: "shell", command_prefix: "npm run" }],
          effective_tool_allowances: [{ tool_name: "shell", command_prefix: "npm run" }],
          model_id: "model:b",
          effective_model_id: "model:b",
          closed_at: T0 + 9,
          updated_at: T0 + 9,
        },
      });
      expect(result.event).toBeUndefined();
      expect(result.interaction_events).toEqual([]);
      expect(await context.store.getSession("session:a")).toStrictEqual({
        ...record,
        title: "renamed",
        approval_mode: "always-allow",
        effective_approval_mode: "always-allow",
        tool_allowances: [{ tool_name: "shell", command_prefix: "npm run" }],
        effective_tool_allowances: [{ tool_name: "shell", command_prefix: "npm run" }],
        model_id: "model:b",
        effective_model_id: "model:b",
        closed_at: T0 + 9,
        updated_at: T0 + 9,
      });
      expect(await context.store.listEvents("session:a", 0, 10)).toEqual([]);
    });
  });
}
