import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';
import { startMetricsServer } from './platform/metrics.js';
import { connectRedis, DatabaseNotReachedError, openDatabaseWhenReachable } from './platform/runtime.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }

  // What happens before the app exists (waiting for the database) is logged as the app logs, in JSON lines.
  const startupLog = pino({ level: config.logLevel });
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  const databaseLog = {
    warn(details: object, message: string) {
      (app?.log ?? startupLog).warn(details, message);
    },
  };
  let database: Awaited<ReturnType<typeof openDatabaseWhenReachable>>;
  try {
    database = await openDatabaseWhenReachable(config, startupLog, databaseLog);
  } catch (error) {
    if (!(error instanceof DatabaseNotReachedError)) throw error;
    startupLog.fatal(error.message);
    process.stderr.write(`failed to start: ${error.message}\n`);
    process.exit(1);
  }
  const redis = connectRedis(config.redisUrl, config.redisTimeoutMs);
  app = await buildApp({ config, database, redis });

  // SIGINT/SIGTERM: refuse new connections, answer what was sent 503 SHUTTING_DOWN, let in-flight requests finish,
  // then close the database; past SHUTDOWN_TIMEOUT_MS the process exits 1 whatever is left.
  const closing = app;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      onTimeout: (delay) =>
        closing.log.error({ delay }, 'shutdown took longer than SHUTDOWN_TIMEOUT_MS; exiting'),
    },
    async ({ signal, err }) => {
      if (err) closing.log.error({ err }, 'closing after an error');
      else closing.log.info({ signal }, 'shutting down');
      await closing.close();
      await metricsServer?.close();
      await database.close();
      redis?.disconnect();
    },
  );
  app.addHook('onClose', async () => closing.log.info('server closed'));

  await app.listen({ host: config.host, port: config.port });
  if (config.metrics.port !== null) {
    metricsServer = await startMetricsServer(app.metrics.registry, {
      ...config.metrics,
      port: config.metrics.port,
    });
    app.log.info({ host: config.metrics.host, port: metricsServer.port }, 'metrics served on their own port');
  }
  app.log.info(
    { database: database.kind, dataDir: database.kind === 'pglite' ? config.dataDir : undefined },
    'exchange ready',
  );
}

main().catch((error) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error)}\n`,
  );
  process.exit(1);
});
