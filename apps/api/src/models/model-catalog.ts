import type { AgentModel, AgentModels } from "@parley/session-core";
import {
  createModelFromSetting,
  type ModelEnv,
  type ModelSetting,
  parseModelSetting,
} from "./create-model-from-setting.js";

/** What `model.list` shows of one model. */
export interface ModelListItem {
  model_id: string;
  label: string;
}

/**
 * The models the operator lets sessions use (README "Configuration"): `PARLEY_MODEL` (the default, always
 * listed first) and then each of `PARLEY_MODELS`, in order, without repeats. A model's `model_id`
 * is its setting written canonically, so it stays the same across restarts and instances.
 */
export interface ModelCatalog extends AgentModels {
  readonly default_model: AgentModel;
  list(): ModelListItem[];
}

const PROVIDER_NAMES: Record<Exclude<ModelSetting["provider"], "demo">, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  "openai-compatible": "OpenAI-compatible",
};

/** The label people read: `Demo`, `Demo (alt)`, `gpt-5-mini (OpenAI)`. */
function labelOfModelSetting(setting: ModelSetting): string {
  if (setting.provider === "demo") return setting.name === "" ? "Demo" : `Demo (${setting.name})`;
  return `${setting.name} (${PROVIDER_NAMES[setting.provider]})`;
}

/**
 * Builds every listed model at once, so a bad entry fails at startup.
 *
 * @throws ModelSettingError naming `PARLEY_MODEL` or `PARLEY_MODELS`.
 */
export function createModelCatalog(
  settings: { PARLEY_MODEL?: string | undefined; PARLEY_MODELS?: string | undefined },
  env: ModelEnv,
): ModelCatalog {
  const entries = [
    { setting: settings.PARLEY_MODEL, variable: "PARLEY_MODEL" },
    ...(settings.PARLEY_MODELS ?? "")
      .split(",")
      .filter((entry) => entry.trim() !== "")
      .map((setting) => ({ setting, variable: "PARLEY_MODELS" })),
  ];
  const models = new Map<string, AgentModel>();
  for (const { setting, variable } of entries) {
    const parsed = parseModelSetting(setting, variable);
    if (models.has(parsed.canonical)) continue;
    models.set(parsed.canonical, {
      model_id: parsed.canonical,
      label: labelOfModelSetting(parsed),
      model: createModelFromSetting(parsed.canonical, env, variable),
    });
  }
  return catalogOfModels([...models.values()]);
}

/** A catalog of `models` (distinct ids), the first one the default. */
export function catalogOfModels(models: AgentModel[]): ModelCatalog {
  const [default_model] = models;
  if (default_model === undefined) throw new Error("A model catalog needs at least one model");
  const byId = new Map(models.map((model) => [model.model_id, model]));
  const items = models.map(({ model_id, label }) => ({ model_id, label }));
  return {
    default_model,
    default_model_id: default_model.model_id,
    resolve: (model_id) => byId.get(model_id),
    list: () => items.map((item) => ({ ...item })),
  };
}
