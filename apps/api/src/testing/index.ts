export {
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  toolPartsOfMutation,
} from "@parley/session-core/testing";
export * from "../faults/private-postgres.js";
export * from "./api-process.js";
export * from "./cuttable-proxy.js";
export * from "./e2e-environment.js";
export * from "./in-memory-api.js";
export * from "./in-memory-auth-store.js";
export * from "./issue-token.js";
export * from "./raw-trpc.js";
export * from "./raw-websocket.js";
export * from "./respond-refusal-code.js";
export * from "./sse-feed.js";
