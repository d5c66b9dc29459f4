/** Every accepted `PARLEY_MODEL` form, as the startup error lists them. */
export const MODEL_SETTING_FORMS = [
  "demo  (default: the built-in offline demo model)",
  "demo:<variant>  (the demo model with every reply marked [<variant>], e.g. to try switching models)",
  "openai:<model-id>  (needs OPENAI_API_KEY; OPENAI_BASE_URL optional; OpenAI Responses API)",
  "anthropic:<model-id>  (needs ANTHROPIC_API_KEY)",
  "openai-compatible:<model-id>  (needs OPENAI_BASE_URL; OPENAI_API_KEY optional; chat completions, e.g. Ollama, vLLM, LM Studio)",
] as const;

/**
 * A `PARLEY_MODEL` (or `PARLEY_MODELS` entry) the server cannot start with. The message lists the
 * valid forms.
 */
export class ModelSettingError extends Error {
  override readonly name = "ModelSettingError";
  readonly setting: string;

  constructor(setting: string, problem: string, variable = "PARLEY_MODEL") {
    super(
      `Invalid ${variable} "${setting}": ${problem}\nValid forms:\n${MODEL_SETTING_FORMS.map((form) => `  - ${form}`).join("\n")}`,
    );
    this.setting = setting;
  }
}
