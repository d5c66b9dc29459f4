import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eEnvironment, REPO_ROOT, startE2eEnvironment } from "../testing/index.js";

const run = promisify(execFile);
const TSC = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");

/** A service another project would write against the published package, strict TypeScript. */
const SERVICE = `import { createParleyClient, ParleyError, type InteractionRequest, type TurnOutcome } from "@parley/sdk";

declare const process: { env: Record<string, string | undefined>; exitCode?: number };

const client = createParleyClient({ url: process.env.PARLEY_URL ?? "", token: process.env.PARLEY_TOKEN ?? "" });
const session = await client.sessions.create({ title: "packed" });
const seen: InteractionRequest["type"][] = [];
const outcome: TurnOutcome = await session.run("write packed.txt: from a packed SDK", {
  onInteraction: (interaction) => {
    seen.push(interaction.type);
    return { type: "approval", outcome: "resolved", payload: { decision: "approved" } };
  },
});
let code = "";
try {
  await client.session("session:missing").info();
} catch (error) {
  if (error instanceof ParleyError) code = error.code;
}
const closed: { closed: true } = await session.close();
console.log(JSON.stringify({ status: outcome.status, text: outcome.text, seen, code, closed }));
await client.close();
`;

describe("the packed SDK, installed outside the workspace", () => {
  let environment: E2eEnvironment;
  let scratch: string;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    scratch = await mkdtemp(path.join(tmpdir(), "parley-packed-sdk-"));
  });

  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
    await environment?.close();
  });

  it("npm pack builds dist only; a fresh project installs the tarball, type-checks a service with tsc and runs it", async () => {
    const packed = await run("npm", ["pack", "-w", "@parley/sdk", "--pack-destination", scratch, "--json"], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    expect(report?.files.map((file) => file.path).sort()).toEqual([
      "README.md",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/index.js.map",
      "package.json",
    ]);

    const project = path.join(scratch, "service");
    await mkdir(project);
    await writeFile(
      path.join(project, "package.json"),
      JSON.stringify({ name: "packed-sdk-service", private: true, type: "module" }),
    );
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          outDir: "out",
          types: [],
        },
        include: ["service.ts"],
      }),
    );
    await writeFile(path.join(project, "service.ts"), SERVICE);
    await run(
      "npm",
      // --omit=peer: @trpc/client lists typescript as a peer; the workspace's tsc checks the service.
      [
        "install",
        "--prefer-offline",
        "--omit=peer",
        "--no-audit",
        "--no-fund",
        path.join(scratch, report?.filename ?? ""),
      ],
      { cwd: project, maxBuffer: 16 * 1024 * 1024 },
    );

    // No skipLibCheck: the package's own declarations are checked too, so a missing module fails.
    const typecheck = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: project }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), stderr: "" }),
    );
    expect(typecheck.stdout).toBe("");

    const service = await run(process.execPath, ["out/service.js"], {
      cwd: project,
      env: { ...process.env, PARLEY_URL: environment.api.url, PARLEY_TOKEN: environment.admin.token },
    });
    expect(service.stderr).toBe("");
    expect(JSON.parse(service.stdout)).toEqual({
      status: "completed",
      text: "Done: I wrote 17 bytes to packed.txt (a new file).",
      seen: ["approval"],
      code: "session_not_found",
      closed: { closed: true },
    });
  }, 900_000);
});
