// Types of scripts/pg-cluster.mjs, for the TypeScript tests and helpers that import it.

export type PostgresCluster =
  | {
      available: true;
      /** postgres://pctl@127.0.0.1:PORT/postgres (trust auth, superuser `pctl`). */
      url: string;
      port: number;
      /** The temp dir: data/, postgres.log, the unix socket. Removed by stop(). */
      dir: string;
      bindir: string;
      timings: { initdbMs: number; startMs: number; totalMs: number };
      /** pg_ctl stop -m immediate, then removes the dir; safe to call twice. */
      stop(): Promise<void>;
    }
  | { available: false; reason: string };

export function findPostgresBinaries(): { bindir: string } | { reason: string };

export function startPostgresCluster(options?: { log?: (line: string) => void }): Promise<PostgresCluster>;

export function freshDatabaseUrl(baseUrl: string, options?: { kind?: 'schema' | 'database' }): Promise<string>;

export function dropDatabase(url: string): Promise<void>;
