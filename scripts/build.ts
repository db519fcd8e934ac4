import { cpSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildWebApp } from '../src/modules/web/build.js';

/**
 * What `npm start` runs on: the server compiled from src/ into dist/ (plain JavaScript, one file per module, the
 * same layout, the SQL migrations beside it), and the web app in web/dist (rebuilt only when its sources changed,
 * or always with `--force`). Running compiled JavaScript instead of compiling TypeScript as it loads saves the
 * loader thread's memory (about 85 MB) and start-up time.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

export async function buildServer(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });
  await build({
    entryPoints: typescriptFiles(SRC),
    outbase: SRC,
    outdir: DIST,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  cpSync(path.join(SRC, 'platform', 'migrations'), path.join(DIST, 'platform', 'migrations'), {
    recursive: true,
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildServer();
  const web = await buildWebApp({ force: process.argv.includes('--force') });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `server built into dist/, web app ${web === 'built' ? 'built into web/dist' : 'up to date'} (${seconds}s)\n`,
  );
}
