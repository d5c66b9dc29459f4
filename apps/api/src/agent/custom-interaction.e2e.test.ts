import type { JsonValue } from "@parley/session-core";
import { isToolState, MutationRecorder } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_FORM } from "../models/demo-intent.js";
import { type E2eEnvironment, startE2eEnvironment } from "../testing/e2e-environment.js";
import { FORM_INTERACTION_TYPE } from "./request-form-tool.js";

describe("a custom interaction type with a response_schema", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("respond refuses a payload that breaks the schema (still pending), then accepts one that fits and the tool gets it", async () => {
    const member = await environment.createMember("forms");
    const session = await member.client().sessions.create({ title: "form" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("fill in the deploy form");
    await feed.waitFor(isToolState("waiting-user"));

    const [request] = await session.interactions();
    expect(request).toMatchObject({
      type: FORM_INTERACTION_TYPE,
      turn_id,
      title: "Deployment settings",
      source: { tool_name: "request_form" },
      payload: {},
      response_schema: DEPLOY_FORM.response_schema,
    });
    const interaction_id = request?.interaction_id ?? "";

    const breaking: JsonValue[] = [
      { environment: "moon", replicas: 2 },
      { environment: "staging" },
      { environment: "staging", replicas: 2.5 },
      { environment: "staging", replicas: 2, extra: true },
      { environment: "staging", replicas: 2, checks: ["tests", "tests"] },
    ];
    for (const payload of breaking) {
      await expect(
        session.respond({
          interaction_id,
          response: { type: FORM_INTERACTION_TYPE, outcome: "resolved", payload },
        }),
      ).rejects.toMatchObject({ code: "interaction_invalid_response" });
    }
    expect((await session.interactions()).map((pending) => pending.interaction_id)).toEqual([interaction_id]);

    const answer = { environment: "production", replicas: 3, notify: true, checks: ["tests", "smoke"] };
    const result = await session.respond({
      interaction_id,
      response: { type: FORM_INTERACTION_TYPE, outcome: "resolved", payload: answer },
    });
    expect(result).toMatchObject({ status: "resolved", interaction_id });
    const completed = await feed.waitFor(isToolState("completed"));
    expect(
      completed.variant === "part" && completed.part.type === "tool" ? completed.part.output : null,
    ).toEqual(answer);
    expect(
      await feed.waitFor((mutation) => mutation.variant === "turn" && mutation.type === "finish"),
    ).toMatchObject({ turn_id, status: "completed" });
    feed.stop();
  });
});
