export { createModelFromSetting, type ModelEnv } from "./create-model-from-setting.js";
export { createDemoModel } from "./demo-model.js";
export { MODEL_SETTING_FORMS, ModelSettingError } from "./model-setting-error.js";
