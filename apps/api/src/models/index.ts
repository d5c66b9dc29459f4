export {
  createModelFromSetting,
  type ModelEnv,
  type ModelSetting,
  parseModelSetting,
} from "./create-model-from-setting.js";
export { createDemoModel } from "./demo-model.js";
export {
  catalogOfModels,
  createModelCatalog,
  labelOfModelSetting,
  type ModelCatalog,
  type ModelListItem,
} from "./model-catalog.js";
export { MODEL_SETTING_FORMS, ModelSettingError } from "./model-setting-error.js";
