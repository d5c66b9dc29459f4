export * from "./api-process.js";
export * from "./cuttable-proxy.js";
export * from "./e2e-environment.js";
export * from "./in-memory-api.js";
export * from "./in-memory-auth-store.js";
export * from "./issue-token.js";
export * from "./mutation-recorder.js";
export * from "./raw-trpc.js";
