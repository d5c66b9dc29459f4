import { execFileSync } from "node:child_process";
import os from "node:os";
import pg from "pg";

export interface MachineInfo {
  nproc: number;
  cpu_model: string;
  memory_total_mib: number;
  memory_available_mib: number;
  load_average_1m: number;
  node: string;
  platform: string;
  postgres_version: string;
  postgres_settings: Record<string, string>;
}

/** What the figures came from: they mean little without it. */
export async function describeMachine(databaseUrl: string): Promise<MachineInfo> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const version = await client.query<{ version: string }>("SELECT version()");
    const settings = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name = ANY($1) ORDER BY name",
      [["fsync", "synchronous_commit", "shared_buffers", "wal_level", "max_connections", "full_page_writes"]],
    );
    return {
      nproc: Number(execFileSync("nproc", { encoding: "utf8" }).trim()),
      cpu_model: os.cpus()[0]?.model ?? "unknown",
      memory_total_mib: Math.round(os.totalmem() / 2 ** 20),
      memory_available_mib: Math.round(os.freemem() / 2 ** 20),
      load_average_1m: os.loadavg()[0] ?? 0,
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      postgres_version: version.rows[0]?.version ?? "unknown",
      postgres_settings: Object.fromEntries(settings.rows.map((row) => [row.name, row.setting])),
    };
  } finally {
    await client.end();
  }
}
