import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createDemoModel } from "./demo-model.js";
import { ModelSettingError } from "./model-setting-error.js";

/** The settings a model may need; `apps/api/src/env.ts` provides them (nothing here reads `process.env`). */
export interface ModelEnv {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
}

/**
 * Builds the server's model from `PARLEY_MODEL` (DESIGN.md §6). The runtime drives it one Step at a
 * time through `doStream`.
 *
 * `openai:<id>` uses OpenAI's Responses API (the provider's default and OpenAI's recommended API),
 * also when `OPENAI_BASE_URL` points at a proxy of OpenAI. Servers that only speak chat completions
 * (Ollama, vLLM, LM Studio, most gateways) are `openai-compatible:<id>`, whose requests go to
 * `<OPENAI_BASE_URL>/chat/completions` with `stream_options.include_usage`.
 *
 * @throws ModelSettingError for an unknown form, an empty model id, or a missing key / base URL.
 */
export function createModelFromSetting(setting: string | undefined, env: ModelEnv): LanguageModelV3 {
  const value = (setting ?? "").trim() || "demo";
  if (value === "demo") return createDemoModel();

  const separator = value.indexOf(":");
  const provider = separator < 0 ? value : value.slice(0, separator);
  const modelId = separator < 0 ? "" : value.slice(separator + 1).trim();
  if (!["openai", "anthropic", "openai-compatible"].includes(provider)) {
    throw new ModelSettingError(value, `unknown model provider "${provider}"`);
  }
  if (modelId === "") throw new ModelSettingError(value, `no model id after "${provider}:"`);

  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  if (baseURL !== undefined && !isHttpUrl(baseURL)) {
    throw new ModelSettingError(value, `OPENAI_BASE_URL is not an http(s) URL: ${baseURL}`);
  }

  switch (provider) {
    case "openai": {
      if (apiKey === undefined) throw new ModelSettingError(value, "OPENAI_API_KEY is not set");
      return createOpenAI({ apiKey, ...(baseURL === undefined ? {} : { baseURL }) }).responses(modelId);
    }
    case "anthropic": {
      const anthropicKey = nonEmpty(env.ANTHROPIC_API_KEY);
      if (anthropicKey === undefined) throw new ModelSettingError(value, "ANTHROPIC_API_KEY is not set");
      return createAnthropic({ apiKey: anthropicKey })(modelId);
    }
    default: {
      if (baseURL === undefined) {
        throw new ModelSettingError(
          value,
          "OPENAI_BASE_URL is not set (the server's /v1 URL, e.g. http://localhost:11434/v1)",
        );
      }
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        includeUsage: true,
        ...(apiKey === undefined ? {} : { apiKey }),
      }).chatModel(modelId);
    }
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
