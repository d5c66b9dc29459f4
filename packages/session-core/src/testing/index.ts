export * from "./gates.js";
export * from "./scripted-model.js";
