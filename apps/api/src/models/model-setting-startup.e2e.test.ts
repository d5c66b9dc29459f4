import { createTestDatabase, type TestDatabase } from "@parley/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiProcess } from "../testing/api-process.js";
import { MODEL_SETTING_FORMS } from "./model-setting-error.js";

/** A bad `PARLEY_MODEL` stops the real API process at startup with an error that lists the valid forms. */
describe("API startup with a bad PARLEY_MODEL", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it.each([
    ["gpt-4o", {}, 'Invalid PARLEY_MODEL "gpt-4o": unknown model provider "gpt-4o"'],
    [
      "openai:gpt-5",
      { OPENAI_API_KEY: "" },
      'Invalid PARLEY_MODEL "openai:gpt-5": OPENAI_API_KEY is not set',
    ],
    ["openai-compatible:llama", { OPENAI_BASE_URL: "" }, "OPENAI_BASE_URL is not set"],
  ])(
    "%s: the process exits before listening, naming the problem and the valid forms",
    async (setting, env, problem) => {
      const failure = await startApiProcess({
        database_url: database.url,
        env: {
          PARLEY_MODEL: setting,
          OPENAI_API_KEY: "",
          ANTHROPIC_API_KEY: "",
          OPENAI_BASE_URL: "",
          ...env,
        },
      }).then(
        async (api) => {
          await api.stop();
          return "the API started";
        },
        (error: unknown) => String(error),
      );
      expect(failure).toMatch(/API process exited \(1\) before listening/);
      expect(failure).toContain(problem);
      for (const form of MODEL_SETTING_FORMS) expect(failure).toContain(form);
    },
  );
});
