import { execFileSync } from 'node:child_process';
import pg from 'pg';

/** A PostgreSQL cluster of this machine that `pg_ctlcluster` can stop and start. */
export interface LocalCluster {
  version: string;
  name: string;
  port: number;
  dataDirectory: string;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '']);

/**
 * The cluster `url` points at, found by its port among `pg_lsclusters` and confirmed by asking the server for its
 * data directory; or why there is none that can safely be restarted from here (another machine, no such cluster,
 * not the same server, no pg_lsclusters).
 */
export async function clusterOf(url: string): Promise<LocalCluster | { refusal: string }> {
  const target = new URL(url);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  if (!LOCAL_HOSTS.has(host))
    return {
      refusal: `it points at ${host}, not this machine, whose clusters are the only ones pg_ctlcluster controls`,
    };
  let listing: string;
  try {
    listing = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' });
  } catch {
    return { refusal: 'pg_lsclusters is not available here' };
  }
  const clusters = listing
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 6)
    .map(([version, name, clusterPort, , , dataDirectory]) => ({
      version: version as string,
      name: name as string,
      port: Number(clusterPort),
      dataDirectory: dataDirectory as string,
    }));
  const cluster = clusters.find((candidate) => candidate.port === port);
  if (!cluster)
    return {
      refusal: `no cluster of this machine listens on port ${port} (pg_lsclusters: ${
        clusters.map((c) => `${c.version}/${c.name} on ${c.port}`).join(', ') || 'none'
      })`,
    };
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    const serving = rows[0]?.data_directory;
    if (serving !== cluster.dataDirectory)
      return {
        refusal: `the server on port ${port} serves ${serving}, not cluster ${cluster.version}/${cluster.name} (${cluster.dataDirectory})`,
      };
  } finally {
    await client.end().catch(() => {});
  }
  return cluster;
}
