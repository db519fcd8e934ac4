import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Builds the web app into web/dist. Without `--force` it builds only when the sources (or the locked dependency
 * versions) changed since the last build, so `npm start` stays quick after the first run.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WEB = path.join(ROOT, 'web');
const DIST = path.join(WEB, 'dist');
const STAMP = path.join(DIST, '.source-hash');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !(dir === WEB && (entry.name === 'dist' || entry.name === 'node_modules')))
    .filter((entry) => !entry.name.endsWith('.test.ts'))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? sourceFiles(full) : [full];
    })
    .sort();
}

const COMPRESSIBLE = /\.(?:js|css|html|svg|json|txt)$/;
const MIN_COMPRESS_BYTES = 1024;

/** Brotli and gzip copies beside each text file, served instead of it to browsers that accept them. */
function precompress(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      precompress(full);
      continue;
    }
    if (!COMPRESSIBLE.test(entry.name) || statSync(full).size < MIN_COMPRESS_BYTES) continue;
    const content = readFileSync(full);
    writeFileSync(
      `${full}.br`,
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(`${full}.gz`, gzipSync(content, { level: 9 }));
  }
}

export function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(WEB), path.join(ROOT, 'package-lock.json')]) {
    if (!existsSync(file)) continue;
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function isCurrent(hash: string): boolean {
  return (
    existsSync(path.join(DIST, 'index.html')) &&
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8').trim() === hash
  );
}

export async function buildWebApp({ force = false }: { force?: boolean } = {}): Promise<'built' | 'current'> {
  const hash = sourceHash();
  if (!force && isCurrent(hash)) return 'current';
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    // A production install without dev dependencies can still serve a web/dist built beforehand.
    if (existsSync(path.join(DIST, 'index.html'))) return 'current';
    throw new Error('vite is not installed: run `npm ci` (with dev dependencies) to build the web app');
  }
  // Vite takes the bundle's NODE_ENV from the environment; a test runner's `test` would ship React's dev build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({ configFile: path.join(WEB, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  precompress(DIST);
  writeFileSync(STAMP, `${hash}\n`);
  return 'built';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  buildWebApp({ force: process.argv.includes('--force') })
    .then((result) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        result === 'built' ? `web app built into web/dist in ${seconds}s\n` : 'web app is up to date\n',
      );
    })
    .catch((error: unknown) => {
      process.stderr.write(
        `web app build failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    });
}
