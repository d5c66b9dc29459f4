export * from "./approval-tool.js";
export * from "./commit-faults.js";
export * from "./event-bus-conformance.js";
export * from "./fixtures.js";
export * from "./gates.js";
export * from "./interleaved-approvals.js";
export * from "./mutation-recorder.js";
export * from "./part-references.js";
export {
  HARNESS_AGENT_ID,
  type HarnessLogEntry,
  RuntimeHarness,
  type RuntimeHarnessOptions,
} from "./runtime-harness.js";
export * from "./scripted-model.js";
export * from "./session-store-conformance.js";
export * from "./simulated-process.js";
export * from "./test-clock.js";
