import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InMemoryApi, startInMemoryApi } from "./testing/in-memory-api.js";

/** `PARLEY_WORKSPACES` with `id[user+user]=path`, through the real router over HTTP. */
describe("named workspaces limited to listed users", () => {
  let directory: string;
  let api: InMemoryApi;
  const clients: ParleyClient[] = [];
  const clientOf = async (name: string, role: "member" | "admin" = "member") => {
    const user = await api.addUser(name, role);
    const client = createParleyClient({ url: api.server.url, token: user.token });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    directory = await realpath(await mkdtemp(path.join(tmpdir(), "parley-workspace-access-")));
    await mkdir(path.join(directory, "repo"));
    await mkdir(path.join(directory, "docs"));
    api = await startInMemoryApi({
      PARLEY_WORKSPACES: `project[alice+bob]=${path.join(directory, "repo")},docs=${path.join(directory, "docs")}`,
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await api?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("a listed member sees and uses the limited workspace", async () => {
    const alice = await clientOf("alice");
    expect(await alice.workspaces.list()).toEqual({
      items: [{ workspace_id: "project" }, { workspace_id: "docs" }],
    });
    const session = await alice.sessions.create({ workspace_id: "project" });
    expect((await session.info()).workspace_id).toBe("project");
  });

  it("an unlisted member sees only the open workspaces and cannot create a session in the limited one", async () => {
    const carol = await clientOf("carol");
    expect(await carol.workspaces.list()).toEqual({ items: [{ workspace_id: "docs" }] });
    for (const workspace_id of ["project", "nowhere"]) {
      await expect(carol.sessions.create({ workspace_id })).rejects.toMatchObject({
        name: "ParleyError",
        code: "invalid_input",
        message: `Unknown workspace_id: ${workspace_id} (configured: docs)`,
      });
    }
    expect((await carol.sessions.list()).items).toEqual([]);
    const open = await carol.sessions.create({ workspace_id: "docs" });
    expect((await open.info()).workspace_id).toBe("docs");
  });

  it("an admin sees and uses every workspace", async () => {
    const admin = await clientOf("root", "admin");
    expect(await admin.workspaces.list()).toEqual({
      items: [{ workspace_id: "project" }, { workspace_id: "docs" }],
    });
    const session = await admin.sessions.create({ workspace_id: "project" });
    expect((await session.info()).workspace_id).toBe("project");
  });
});
