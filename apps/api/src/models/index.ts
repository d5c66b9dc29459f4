export { createModelCatalog, type ModelListItem } from "./model-catalog.js";
