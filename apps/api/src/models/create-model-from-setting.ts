import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createDemoModel } from "./demo-model.js";
import { ModelSettingError } from "./model-setting-error.js";
import { withTransientRetries } from "./transient-retries.js";

/** The settings a model may need; `apps/api/src/env.ts` provides them (nothing here reads `process.env`). */
export interface ModelEnv {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
}

const PROVIDERS = ["demo", "openai", "anthropic", "openai-compatible"] as const;
type ModelProvider = (typeof PROVIDERS)[number];

/** A model setting taken apart: `demo`, `demo:<variant>` or `<provider>:<model id>`. */
export interface ModelSetting {
  provider: ModelProvider;
  /** What follows the colon: the provider's model id, or the demo variant ("" for plain `demo`). */
  name: string;
  /** The setting written canonically (trimmed around the colon): the model's stable `model_id`. */
  canonical: string;
}

/**
 * Parses one model setting (unset or blank: `demo`).
 *
 * @throws ModelSettingError for an unknown provider or an empty model id.
 */
export function parseModelSetting(setting: string | undefined, variable = "PARLEY_MODEL"): ModelSetting {
  const value = (setting ?? "").trim() || "demo";
  const separator = value.indexOf(":");
  const provider = (separator < 0 ? value : value.slice(0, separator)).trim();
  const name = separator < 0 ? "" : value.slice(separator + 1).trim();
  if (!isProvider(provider)) {
    throw new ModelSettingError(value, `unknown model provider "${provider}"`, variable);
  }
  if (name === "" && (provider !== "demo" || separator >= 0)) {
    throw new ModelSettingError(value, `no model id after "${provider}:"`, variable);
  }
  return { provider, name, canonical: name === "" ? provider : `${provider}:${name}` };
}

function isProvider(value: string): value is ModelProvider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/**
 * Builds a model from a `PARLEY_MODEL`-style setting (README "Configuration"). The runtime drives it one Step at a
 * time through `doStream`; a provider's call that fails transiently is tried again
 * (`withTransientRetries`).
 *
 * `openai:<id>` uses OpenAI's Responses API (the provider's default and OpenAI's recommended API),
 * also when `OPENAI_BASE_URL` points at a proxy of OpenAI. Servers that only speak chat completions
 * (Ollama, vLLM, LM Studio, most gateways) are `openai-compatible:<id>`, whose requests go to
 * `<OPENAI_BASE_URL>/chat/completions` with `stream_options.include_usage`.
 *
 * @throws ModelSettingError for an unknown form, an empty model id, or a missing key / base URL.
 */
export function createModelFromSetting(
  setting: string | undefined,
  env: ModelEnv,
  variable = "PARLEY_MODEL",
): LanguageModelV3 {
  const { provider, name: modelId, canonical: value } = parseModelSetting(setting, variable);
  if (provider === "demo") return createDemoModel(modelId === "" ? {} : { variant: modelId });

  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  if (baseURL !== undefined && !isHttpUrl(baseURL)) {
    throw new ModelSettingError(value, `OPENAI_BASE_URL is not an http(s) URL: ${baseURL}`, variable);
  }

  switch (provider) {
    case "openai": {
      if (apiKey === undefined) throw new ModelSettingError(value, "OPENAI_API_KEY is not set", variable);
      return withTransientRetries(
        createOpenAI({ apiKey, ...(baseURL === undefined ? {} : { baseURL }) }).responses(modelId),
      );
    }
    case "anthropic": {
      const anthropicKey = nonEmpty(env.ANTHROPIC_API_KEY);
      if (anthropicKey === undefined)
        throw new ModelSettingError(value, "ANTHROPIC_API_KEY is not set", variable);
      return withTransientRetries(createAnthropic({ apiKey: anthropicKey })(modelId));
    }
    default: {
      if (baseURL === undefined) {
        throw new ModelSettingError(
          value,
          "OPENAI_BASE_URL is not set (the server's /v1 URL, e.g. http://localhost:11434/v1)",
          variable,
        );
      }
      return withTransientRetries(
        createOpenAICompatible({
          name: "openai-compatible",
          baseURL,
          includeUsage: true,
          ...(apiKey === undefined ? {} : { apiKey }),
        }).chatModel(modelId),
      );
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
