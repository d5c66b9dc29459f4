export * from "./api-process.js";
export * from "./cuttable-proxy.js";
export * from "./e2e-environment.js";
export * from "./mutation-recorder.js";
export * from "./raw-trpc.js";
