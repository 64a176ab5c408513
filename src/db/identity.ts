// What tells one database apart from every other, for names that must differ between deployments (the default
// COLLAB_REDIS_PREFIX, src/collab/redis.ts): the cluster's system identifier (pg_control_system(), chosen at initdb,
// so a copy restored with pg_restore into another server gets another) and the database's name (so two databases
// of one server differ). Both are read from the server, so every instance agrees on them however it addresses the
// server (a host name, an address, a pooler). A copy of the server's files (a storage snapshot, pg_basebackup) keeps
// both: such a copy needs its own COLLAB_REDIS_PREFIX (docs/deploy.md "Redis").
import type pg from 'pg';

export async function databaseIdentity(pool: Pick<pg.Pool, 'query'>, log?: { warn(o: object, m: string): void }): Promise<string> {
  try {
    const { rows } = await pool.query<{ id: string; name: string }>('SELECT system_identifier::text AS id, current_database() AS name FROM pg_control_system()');
    return `${rows[0].id}/${rows[0].name}`;
  } catch (err) {
    // A server that hides the function: the address it answers on stands in for the cluster.
    log?.warn({ err }, 'database: the system identifier cannot be read; the server address and database name identify it');
    const { rows } = await pool.query<{ id: string; name: string }>("SELECT coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port(), 0) AS id, current_database() AS name");
    return `${rows[0].id}/${rows[0].name}`;
  }
}
