import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eEnvironment, startE2eEnvironment } from "./testing/e2e-environment.js";
import { runShellThroughDemoModel } from "./testing/shell-output.js";

/**
 * Members' quotas at their edges through a real API on Postgres (docs/security.md): the
 * N-th session or prompt passes, the N+1-th is refused with `limit_exceeded`, also when the calls
 * race, and an admin has none.
 */
const SESSIONS = 3;
const PROMPTS = 3;
const WORKSPACE_BYTES = 100_000;

let environment: E2eEnvironment;

beforeAll(async () => {
  environment = await startE2eEnvironment({
    env: {
      PARLEY_MAX_SESSIONS_PER_MEMBER: String(SESSIONS),
      PARLEY_MAX_PROMPTS_PER_MINUTE: String(PROMPTS),
      PARLEY_MAX_WORKSPACE_BYTES: String(WORKSPACE_BYTES),
    },
  });
});

afterAll(async () => {
  await environment?.close();
});

/** The `parley_code` a call failed with, or "ok". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe("open sessions per member", () => {
  it("the third is created, the fourth is limit_exceeded; closing one makes room", async () => {
    const client = (await environment.createMember("sara")).client();
    const created = [];
    for (let index = 0; index < SESSIONS; index++) created.push(await client.sessions.create());
    const refused = client.sessions.create();
    await expect(refused).rejects.toMatchObject({ code: "limit_exceeded" });
    await expect(refused).rejects.toThrow(`You have ${SESSIONS} open sessions (the limit is ${SESSIONS})`);
    await created[0]?.close();
    expect(await outcome(client.sessions.create())).toBe("ok");
    expect(await outcome(client.sessions.create())).toBe("limit_exceeded");
  });

  it("concurrent creations cannot slip past it: exactly the limit succeed", async () => {
    const client = (await environment.createMember("rita")).client();
    const results = await Promise.all(Array.from({ length: 8 }, () => outcome(client.sessions.create())));
    expect(results.filter((result) => result === "ok")).toHaveLength(SESSIONS);
    expect(results.filter((result) => result === "limit_exceeded")).toHaveLength(8 - SESSIONS);
    expect((await client.sessions.list()).items).toHaveLength(SESSIONS);
  });

  it("does not apply to an admin", async () => {
    const client = environment.admin.client();
    for (let index = 0; index <= SESSIONS; index++) await client.sessions.create();
  });
});

describe("prompts per minute per member", () => {
  it("the third prompt of the minute is accepted, the fourth is limit_exceeded, in any session", async () => {
    const client = (await environment.createMember("pete")).client();
    const [first, second] = [await client.sessions.create(), await client.sessions.create()];
    if (first === undefined || second === undefined) throw new Error("sessions not created");
    await first.prompt("hello");
    await second.prompt("hello");
    await first.prompt("hello again");
    const refused = second.prompt("one too many");
    await expect(refused).rejects.toMatchObject({ code: "limit_exceeded" });
    await expect(refused).rejects.toThrow(
      `You sent ${PROMPTS} prompts in the last minute (the limit is ${PROMPTS})`,
    );
  });

  it("a retry of a prompt at the edge (same request_id) is answered with its first Turn, not refused", async () => {
    const client = (await environment.createMember("rhea")).client();
    const session = await client.sessions.create();
    await session.prompt("one");
    await session.prompt("two");
    const last = await session.prompt({ query: "three", request_id: "third-prompt" });
    await expect(session.prompt("four")).rejects.toMatchObject({ code: "limit_exceeded" });
    expect(await session.prompt({ query: "three", request_id: "third-prompt" })).toEqual(last);
  });

  it("concurrent prompts cannot slip past it: exactly the limit are accepted", async () => {
    const client = (await environment.createMember("quinn")).client();
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => client.sessions.create()));
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        outcome(sessions[index % SESSIONS]?.prompt(`hello ${index}`) ?? Promise.reject()),
      ),
    );
    expect(results.filter((result) => result === "ok")).toHaveLength(PROMPTS);
    expect(results.filter((result) => result === "limit_exceeded")).toHaveLength(7 - PROMPTS);
  });
});

describe("workspace bytes per member", () => {
  it("a prompt is accepted with the workspaces exactly full, and refused once they hold one byte more", async () => {
    const member = await environment.createMember("wendy");
    const client = member.client();
    const { session, output } = await runShellThroughDemoModel(
      client,
      `head -c ${WORKSPACE_BYTES} /dev/zero > full.bin`,
    );
    expect(output.exit_code).toBe(0);
    // Exactly at the quota: the next prompt passes, and its command adds one byte.
    await session.prompt("run printf x > one-more.bin");
    await waitForBytes(path.join(environment.api.workspace_root, session.id, "one-more.bin"), 1);
    const refused = session.prompt("hello");
    await expect(refused).rejects.toMatchObject({ code: "limit_exceeded" });
    await expect(refused).rejects.toThrow(`Your session workspaces hold more than ${WORKSPACE_BYTES} bytes`);
  });
});

/**
 * Until `file` holds at least `bytes`: the shell creates the file (`>`) before the command writes
 * to it, so a file that exists may still be empty, and a prompt checked then fits the quota.
 */
async function waitForBytes(file: string, bytes: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const size = await stat(file).then(
      (stats) => stats.size,
      () => -1,
    );
    if (size >= bytes) return;
    if (Date.now() > deadline) throw new Error(`${file} never held ${bytes} bytes (it holds ${size})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
