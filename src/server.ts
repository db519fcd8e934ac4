import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';
import { connectRedis, openConfiguredDatabase } from './platform/runtime.js';

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

  // Lost connections are told to the app's log once it exists, to stderr before.
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  const databaseLog = {
    warn(details: object, message: string) {
      if (app) app.log.warn(details, message);
      else process.stderr.write(`${message}\n`);
    },
  };
  const database = await openConfiguredDatabase(config, databaseLog);
  const redis = connectRedis(config.redisUrl);
  app = await buildApp({ config, database, redis });

  // SIGINT/SIGTERM: stop accepting connections, let in-flight requests finish, then close the database.
  closeWithGrace({ delay: 15_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
    redis?.disconnect();
  });
  app.addHook('onClose', async () => app.log.info('server closed'));

  await app.listen({ host: config.host, port: config.port });
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
