import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { startInMemoryApi } from "../../testing/in-memory-api.js";

export interface InProcessApiWithModel {
  url: string;
  /** The named workspace `project` (sessions choose it with `workspace_id: "project"`). */
  project_root: string;
  /** A token of a new member. */
  memberToken(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `startInMemoryApi` serving the default agent with the given model and a named workspace
 * `project`, so a provider model can be driven through the API without Postgres.
 */
export async function startInProcessApiWithModel(model: LanguageModelV3): Promise<InProcessApiWithModel> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-api-model-")));
  const project_root = path.join(base, "project");
  await mkdir(project_root);
  const api = await startInMemoryApi({ model, PARLEY_WORKSPACES: `project=${project_root}` });
  return {
    url: api.server.url,
    project_root,
    async memberToken(name) {
      return (await api.addUser(name, "member")).token;
    },
    async close() {
      await api.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
