import { Pool } from 'undici';
import {
  createEvent,
  json,
  lcg,
  percentile,
  registerAdmin,
  registerUsers,
  round1,
  runAudit,
  sampleRss,
  startCluster,
} from './harness.js';

/**
 * Durable orders per second through HTTP on one hot option: real server processes on PostgreSQL (one, or
 * several on the same database with the load split evenly over them), many users each with their own session,
 * limit orders around the middle of the book (about half of them trade). Every 201 is an order committed to
 * the database. The ledger audit runs on the database afterwards.
 */
export interface HttpResult {
  instances: number;
  users: number;
  concurrency: number;
  seconds: number;
  orders: number;
  errors: number;
  ordersPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  auditClean: boolean;
  /** Highest resident memory of each server process during the run, MB. */
  maxRssMb: number[];
}

export interface HttpBenchOptions {
  databaseUrl: string;
  users: number;
  concurrency: number;
  seconds: number;
  instances: number;
}

export async function benchHttp(options: HttpBenchOptions): Promise<HttpResult> {
  const cluster = await startCluster(options.databaseUrl, options.instances);
  const connections = Math.ceil(options.concurrency / options.instances);
  const pools = cluster.urls.map((url) => new Pool(url, { connections }));
  try {
    const first = pools[0] as Pool;

    const admin = await registerAdmin(first);
    const [optionId] = await createEvent(first, admin, {
      title: 'Hot market',
      category: 'cricket',
      options: [{ label: 'Hot', liquidityCents: 100_000 }],
    });
    const tokens = await registerUsers(pools, options.users);

    const latencies: number[] = [];
    let orders = 0;
    let errors = 0;
    const random = lcg();
    const rss = sampleRss(cluster.pids);
    const deadline = Date.now() + options.seconds * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, worker) => {
        const pool = pools[worker % pools.length] as Pool;
        while (Date.now() < deadline) {
          const token = tokens[Math.floor(random() * tokens.length)] as string;
          const body = {
            optionId,
            side: random() < 0.5 ? 'YES' : 'NO',
            action: 'BUY',
            quantity: 1 + Math.floor(random() * 5),
            limitPriceCents: 45 + Math.floor(random() * 11),
          };
          const t0 = performance.now();
          const res = await json(pool, 'POST', '/api/limit-orders', token, body).catch(() => ({ status: 0 }));
          latencies.push(performance.now() - t0);
          if (res.status === 201) orders++;
          else errors++;
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const maxRssMb = rss.stop();
    const auditClean = await runAudit(cluster.databaseUrl);

    latencies.sort((a, b) => a - b);
    return {
      instances: options.instances,
      users: options.users,
      concurrency: options.concurrency,
      seconds: round1(seconds),
      orders,
      errors,
      ordersPerSecond: Math.round(orders / seconds),
      p50Ms: round1(percentile(latencies, 50)),
      p99Ms: round1(percentile(latencies, 99)),
      auditClean,
      maxRssMb,
    };
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await cluster.stop();
  }
}
