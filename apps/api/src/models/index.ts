export { createModelFromSetting } from "./create-model-from-setting.js";
