export * from "./fixtures.js";
export * from "./gates.js";
export * from "./scripted-model.js";
export * from "./session-store-conformance.js";
