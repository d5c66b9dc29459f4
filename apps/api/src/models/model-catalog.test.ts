import { describe, expect, it } from "vitest";
import { createModelCatalog } from "./model-catalog.js";
import { ModelSettingError } from "./model-setting-error.js";

describe("createModelCatalog", () => {
  it("lists PARLEY_MODEL first, then PARLEY_MODELS in order, each once, with canonical ids and labels", () => {
    const catalog = createModelCatalog(
      { PARLEY_MODEL: "demo", PARLEY_MODELS: " demo:alt, openai:gpt-5-mini,,demo , demo : alt" },
      { OPENAI_API_KEY: "sk-test" },
    );
    expect(catalog.list()).toEqual([
      { model_id: "demo", label: "Demo" },
      { model_id: "demo:alt", label: "Demo (alt)" },
      { model_id: "openai:gpt-5-mini", label: "gpt-5-mini (OpenAI)" },
    ]);
    expect(catalog.default_model_id).toBe("demo");
    expect(catalog.default_model.model.modelId).toBe("demo");
    expect(catalog.resolve("openai:gpt-5-mini")?.model.provider).toBe("openai.responses");
    expect(catalog.resolve("demo:alt")?.model.modelId).toBe("demo:alt");
    expect(catalog.resolve("gpt-5-mini")).toBeUndefined();
  });

  it("without PARLEY_MODELS the default model is the only one; PARLEY_MODEL stays first when listed again", () => {
    expect(createModelCatalog({}, {}).list()).toEqual([{ model_id: "demo", label: "Demo" }]);
    const catalog = createModelCatalog(
      { PARLEY_MODEL: "anthropic:claude-x", PARLEY_MODELS: "demo,anthropic:claude-x" },
      { ANTHROPIC_API_KEY: "sk-ant" },
    );
    expect(catalog.list()).toEqual([
      { model_id: "anthropic:claude-x", label: "claude-x (Anthropic)" },
      { model_id: "demo", label: "Demo" },
    ]);
    expect(catalog.default_model_id).toBe("anthropic:claude-x");
  });

  it("a bad PARLEY_MODELS entry fails at startup and names the variable", () => {
    const attempt = () => createModelCatalog({ PARLEY_MODELS: "demo:alt,mistral:large" }, {});
    expect(attempt).toThrow(ModelSettingError);
    expect(attempt).toThrow('Invalid PARLEY_MODELS "mistral:large": unknown model provider "mistral"');
    expect(() => createModelCatalog({ PARLEY_MODELS: "openai:gpt-5" }, {})).toThrow(
      'Invalid PARLEY_MODELS "openai:gpt-5": OPENAI_API_KEY is not set',
    );
  });
});
