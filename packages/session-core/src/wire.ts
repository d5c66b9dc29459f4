/**
 * The public wire vocabulary alone (the API contract, schemas and errors, zod only): what a client needs, without the
 * runtime. `@parley/sdk` bundles this entry into its published package.
 */

export * from "./contract/index.js";
export * from "./errors.js";
export * from "./schema/wire-schemas.js";
