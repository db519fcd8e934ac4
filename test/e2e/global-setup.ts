import { buildWebApp } from '../../src/modules/web/build.js';

/** The browser tests run against the built app: build it now if its sources changed since the last build. */
export default async function setup(): Promise<void> {
  const started = Date.now();
  const result = await buildWebApp();
  if (result === 'built')
    process.stdout.write(`web app built in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
}
