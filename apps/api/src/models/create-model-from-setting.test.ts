import { describe, expect, it } from "vitest";
import { createModelFromSetting, parseModelSetting } from "./create-model-from-setting.js";
import { MODEL_SETTING_FORMS, ModelSettingError } from "./model-setting-error.js";

describe("createModelFromSetting", () => {
  it.each([undefined, "", "  ", "demo"])("%j gives the demo model", (setting) => {
    const model = createModelFromSetting(setting, {});
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(["v3", "parley", "demo"]);
  });

  it("demo:<variant> is the demo model under its own id", () => {
    const model = createModelFromSetting(" demo : alt ", {});
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(["v3", "parley", "demo:alt"]);
  });

  it("parseModelSetting writes each setting canonically (the model_id)", () => {
    expect(parseModelSetting(undefined)).toEqual({ provider: "demo", name: "", canonical: "demo" });
    expect(parseModelSetting(" demo : alt ")).toEqual({
      provider: "demo",
      name: "alt",
      canonical: "demo:alt",
    });
    expect(parseModelSetting("openai-compatible: llama3.2:3b")).toEqual({
      provider: "openai-compatible",
      name: "llama3.2:3b",
      canonical: "openai-compatible:llama3.2:3b",
    });
  });

  it("openai:<id> is the Responses API model, with an optional base URL", () => {
    const model = createModelFromSetting("openai:gpt-5-mini", { OPENAI_API_KEY: "sk-test" });
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual([
      "v3",
      "openai.responses",
      "gpt-5-mini",
    ]);
    const proxied = createModelFromSetting("openai:gpt-5-mini", {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "https://proxy.example/v1",
    });
    expect(proxied.provider).toBe("openai.responses");
  });

  it("anthropic:<id> is the Anthropic messages model", () => {
    const model = createModelFromSetting("anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "sk-ant" });
    expect([model.provider, model.modelId]).toEqual(["anthropic.messages", "claude-sonnet-4-5"]);
  });

  it("openai-compatible:<id> is a chat-completions model; the key is optional", () => {
    const model = createModelFromSetting("openai-compatible:llama3.2:3b", {
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
    });
    expect([model.provider, model.modelId]).toEqual(["openai-compatible.chat", "llama3.2:3b"]);
  });

  it.each([
    ["gpt-4o", {}, 'unknown model provider "gpt-4o"'],
    ["mistral:large", {}, 'unknown model provider "mistral"'],
    ["openai:", { OPENAI_API_KEY: "k" }, 'no model id after "openai:"'],
    ["demo:", {}, 'no model id after "demo:"'],
    ["openai:gpt-5", {}, "OPENAI_API_KEY is not set"],
    ["openai:gpt-5", { OPENAI_API_KEY: "  " }, "OPENAI_API_KEY is not set"],
    ["anthropic:claude", { OPENAI_API_KEY: "k" }, "ANTHROPIC_API_KEY is not set"],
    ["openai-compatible:llama", {}, "OPENAI_BASE_URL is not set"],
    [
      "openai-compatible:llama",
      { OPENAI_BASE_URL: "localhost:11434" },
      "OPENAI_BASE_URL is not an http(s) URL",
    ],
  ])("%j with %j fails at startup: %s", (setting, env, problem) => {
    const attempt = () => createModelFromSetting(setting, env);
    expect(attempt).toThrow(ModelSettingError);
    expect(attempt).toThrow(`Invalid PARLEY_MODEL "${setting}": ${problem}`);
    for (const form of MODEL_SETTING_FORMS) expect(attempt).toThrow(form);
  });
});
