import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { withDatabaseName } from "@parley/db";
import { resolveTestAdminUrl } from "@parley/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withClient } from "./fault-checks.js";
import { FAULT_PHASE_ENV, type FaultPhase } from "./kill-switch.js";

/**
 * The fault suite's kill points are only as good as the switch: run a plain `pg` transaction that
 * writes the `interactions` table in a child process with the switch preloaded, and check where it
 * died by what Postgres kept.
 */
describe("kill switch", () => {
  let adminUrl: string;
  let databaseUrl: string;
  const name = `parley_test_${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    adminUrl = await resolveTestAdminUrl();
    await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    databaseUrl = withDatabaseName(adminUrl, name);
    await withClient(databaseUrl, (client) =>
      client.query('CREATE TABLE "interactions" (interaction_id text PRIMARY KEY, status text NOT NULL)'),
    );
  });

  afterAll(async () => {
    await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  /**
   * Runs BEGIN; INSERT INTO interactions …; COMMIT in a child with the switch set to `phase`, the
   * status bound as a plain value or inside a JSON recordset.
   */
  const runTransaction = (
    phase: FaultPhase,
    interaction_id: string,
    status: string,
    form: "value" | "recordset" = "value",
    transaction: "explicit" | "autocommit" = "explicit",
  ) => {
    const insert =
      form === "value"
        ? `{ text: 'INSERT INTO "public"."interactions" ("interaction_id","status") VALUES ($1,$2)', values: [process.env.ROW_ID, process.env.ROW_STATUS] }`
        : `{ text: "INSERT INTO interactions (interaction_id, status) SELECT r.interaction_id, r.status FROM jsonb_to_recordset($1::jsonb) AS r(interaction_id text, status text)", values: [JSON.stringify([{ interaction_id: process.env.ROW_ID, status: process.env.ROW_STATUS }])] }`;
    const script = `
      import pg from "pg";
      const client = new pg.Client({ connectionString: process.env.TARGET_URL });
      await client.connect();
      ${transaction === "explicit" ? 'await client.query("BEGIN");' : ""}
      await client.query(${insert});
      ${transaction === "explicit" ? 'await client.query("COMMIT");' : ""}
      console.log("committed and alive");
      await client.end();`;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        path.join(import.meta.dirname, "kill-switch-preload.ts"),
        "--input-type=module",
        "-e",
        script,
      ],
      {
        cwd: import.meta.dirname,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          TARGET_URL: databaseUrl,
          ROW_ID: interaction_id,
          ROW_STATUS: status,
          [FAULT_PHASE_ENV]: phase,
        },
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    return new Promise<{ signal: NodeJS.Signals | null; output: string }>((resolve) =>
      child.once("exit", (_code, signal) => resolve({ signal, output })),
    );
  };

  const storedStatus = (interaction_id: string) =>
    withClient(databaseUrl, async (client) => {
      const result = await client.query<{ status: string }>(
        "SELECT status FROM interactions WHERE interaction_id = $1",
        [interaction_id],
      );
      return result.rows.map((row) => row.status);
    });

  it("request-commit dies before the COMMIT of a pending interaction: nothing is kept", async () => {
    const result = await runTransaction("request-commit", "interaction:a", "pending");
    expect(result.signal).toBe("SIGKILL");
    expect(result.output).not.toContain("committed and alive");
    expect(await storedStatus("interaction:a")).toEqual([]);
  });

  it("respond-commit dies before the COMMIT of an answer: nothing is kept", async () => {
    const result = await runTransaction("respond-commit", "interaction:b", "resolved");
    expect(result.signal).toBe("SIGKILL");
    expect(await storedStatus("interaction:b")).toEqual([]);
  });

  it("respond-committed dies right after the COMMIT of an answer: the answer is kept", async () => {
    const result = await runTransaction("respond-committed", "interaction:c", "denied");
    expect(result.signal).toBe("SIGKILL");
    expect(result.output).not.toContain("committed and alive");
    expect(await storedStatus("interaction:c")).toEqual(["denied"]);
  });

  it("recognises rows written as one JSON recordset, as @parley/db writes them", async () => {
    const result = await runTransaction("respond-commit", "interaction:e", "resolved", "recordset");
    expect(result.signal).toBe("SIGKILL");
    expect(await storedStatus("interaction:e")).toEqual([]);
  });

  it("request-commit dies before a one-statement revision (autocommit) is sent: nothing is kept", async () => {
    const result = await runTransaction(
      "request-commit",
      "interaction:f",
      "pending",
      "recordset",
      "autocommit",
    );
    expect(result.signal).toBe("SIGKILL");
    expect(await storedStatus("interaction:f")).toEqual([]);
  });

  it("respond-committed dies right after a one-statement revision returned: the answer is kept", async () => {
    const result = await runTransaction(
      "respond-committed",
      "interaction:g",
      "resolved",
      "recordset",
      "autocommit",
    );
    expect(result.signal).toBe("SIGKILL");
    expect(result.output).not.toContain("committed and alive");
    expect(await storedStatus("interaction:g")).toEqual(["resolved"]);
  });

  it("does not fire for writes of other statuses", async () => {
    const result = await runTransaction("respond-commit", "interaction:d", "pending");
    expect(result.signal).toBeNull();
    expect(result.output).toContain("committed and alive");
    expect(await storedStatus("interaction:d")).toEqual(["pending"]);
  });
});
