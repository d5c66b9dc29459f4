import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { isToolState, MutationRecorder } from "@parley/session-core/testing";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../testing/api-process.js";
import { type E2eEnvironment, startE2eEnvironment } from "../testing/e2e-environment.js";

const run = promisify(execFile);

/** The shell blocks of docs/http.md, by their `{#name}` tag, as written there. */
async function httpExamples(): Promise<Map<string, string>> {
  const markdown = await readFile(path.join(REPO_ROOT, "docs/http.md"), "utf8");
  const examples = new Map<string, string>();
  for (const match of markdown.matchAll(/```sh \{#([a-z-]+)\}\n([\s\S]*?)```/g)) {
    if (match[1] !== undefined && match[2] !== undefined) examples.set(match[1], match[2]);
  }
  return examples;
}

describe("the HTTP surface for other languages", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("GET /openapi.json (no token) is a valid OpenAPI 3.1 document of every query and mutation", async () => {
    const response = await fetch(`${environment.api.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(await new Validator().validate(document)).toEqual({ valid: true });
    expect(document.openapi).toBe("3.1.0");
    const operations = Object.entries(document.paths).map(
      ([route, methods]) => `${Object.keys(methods).join(",")} ${route}`,
    );
    expect(operations).toContain("post /trpc/session.prompt");
    expect(operations).toContain("get /trpc/session.interactions");
    expect(operations).toContain("post /trpc/session.respond");
    expect(operations).toContain("post /trpc/session.rename");
    expect(operations).toContain("get /trpc/admin.interactions");
    expect(operations.some((operation) => operation.includes("onMutation"))).toBe(false);
  });

  it("the curl examples of docs/http.md run as written: create, prompt, interactions, respond", async () => {
    const examples = await httpExamples();
    expect([...examples.keys()]).toEqual(["create", "prompt", "interactions", "respond"]);
    const member = await environment.createMember("curl");
    const env: Record<string, string> = {
      ...process.env,
      PARLEY_URL: environment.api.url,
      PARLEY_TOKEN: member.token,
    };
    const curl = async (name: string) => {
      const { stdout } = await run("bash", ["-euo", "pipefail", "-c", examples.get(name) ?? "false"], {
        env,
      });
      return JSON.parse(stdout) as { result: { data: unknown } };
    };

    const created = (await curl("create")).result.data as { session_id: string; title: string };
    expect(created.title).toBe("from curl");
    env.SESSION_ID = created.session_id;

    const feed = new MutationRecorder(member.client().session(created.session_id), { after_event_id: 0 });
    const prompted = (await curl("prompt")).result.data as { turn_id: string };
    expect(Object.keys(prompted)).toEqual(["turn_id"]);
    await feed.waitFor(isToolState("waiting-user"));

    const pending = (await curl("interactions")).result.data as {
      interaction_id: string;
      type: string;
      turn_id: string;
      payload: unknown;
    }[];
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      type: "approval",
      turn_id: prompted.turn_id,
      payload: { operation: "tool", validated_input: { path: "notes.txt", content: "hello from curl" } },
    });
    env.INTERACTION_ID = pending[0]?.interaction_id ?? "";

    const answered = (await curl("respond")).result.data;
    expect(answered).toEqual({
      status: "resolved",
      interaction_id: env.INTERACTION_ID,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    expect(
      await feed.waitFor((mutation) => mutation.variant === "turn" && mutation.type === "finish"),
    ).toMatchObject({ turn_id: prompted.turn_id, status: "completed" });
    feed.stop();
  });
});
