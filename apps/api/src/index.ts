export { parseEnv, runtimeSettingsFromEnv } from "./env.js";
export { PARLEY_TO_TRPC_CODE } from "./errors.js";
export { type AppRouter, appRouter } from "./router.js";
export { type ApiServer, type StartApiServerOptions, startApiServer } from "./server.js";
export { type ApiServices, composeApiServices, type ServiceAdapters } from "./services.js";
export { createWorkspaceCatalog, type WorkspaceCatalog } from "./workspace-catalog.js";
