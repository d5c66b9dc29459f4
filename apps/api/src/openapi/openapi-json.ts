import { appRouter } from "../router.js";
import { createOpenApiDocument } from "./openapi-document.js";

/** The API's package version, shown as the document's `info.version`. */
const API_VERSION = "0.1.0";

let cached: string | null = null;

/** `GET /openapi.json` (no token): generated once from the router's zod schemas. */
export function openApiJson(): string {
  cached ??= JSON.stringify(createOpenApiDocument(appRouter, { version: API_VERSION }));
  return cached;
}
