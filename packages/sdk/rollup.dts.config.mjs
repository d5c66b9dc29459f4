import { dts } from "rollup-plugin-dts";

/**
 * One self-contained `dist/index.d.ts`: the wire types of `@parley/session-core/wire` are inlined
 * (`respectExternal`), only the real dependencies stay imports.
 */
export default {
  input: "src/index.ts",
  output: { file: "dist/index.d.ts", format: "es" },
  plugins: [dts({ tsconfig: "tsconfig.build.json", respectExternal: true })],
  external: [/^@trpc\//, /^zod(\/|$)/, /^ws$/],
};
