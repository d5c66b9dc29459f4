import { findPostgresBinaries, startPrivatePostgres } from "@parley/api/testing";

/** The PostgreSQL server a bench run makes its scratch databases on. */
export interface BenchPostgresServer {
  /** Superuser URL of the server's `postgres` database. */
  url: string;
  /** Whether this run started the server itself (it is then destroyed at the end). */
  isPrivate: boolean;
  /** Stops and removes a private server; nothing for a server the bench was given. */
  destroy(): Promise<void>;
}

/**
 * `BENCH_DATABASE_URL` when set; otherwise a private PostgreSQL on `port` (when the binaries are
 * installed), so that no other work on the machine's shared server skews the figures; otherwise
 * `DATABASE_URL` or the local server. A private server allows 300 connections (two API instances
 * with full pools and the bench's own clients), plus `settings`.
 */
export async function startBenchPostgresServer(options: {
  port: number;
  settings?: Record<string, string>;
  log?: (message: string) => void;
}): Promise<BenchPostgresServer> {
  const given = process.env.BENCH_DATABASE_URL;
  if (!given && findPostgresBinaries()) {
    options.log?.(`starting a private PostgreSQL on port ${options.port}`);
    const server = await startPrivatePostgres({
      port: options.port,
      settings: { max_connections: "300", ...options.settings },
    });
    return { url: server.url(), isPrivate: true, destroy: () => server.destroy() };
  }
  const url = given || (process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  return { url, isPrivate: false, destroy: async () => undefined };
}
