export {
  createModelFromSetting,
  MODEL_SETTING_FORMS,
  type ModelEnv,
  ModelSettingError,
} from "./create-model-from-setting.js";
export { createDemoModel } from "./demo-model.js";
