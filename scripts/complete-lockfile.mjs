// Adds lock-file entries for platform-specific optional packages that the registry in use does not serve.
// `npm ci` insists that every optional dependency of a locked package has an entry, even one for another
// operating system; without them it refuses to install. The entries carry the platform (os, cpu, libc) so that
// npm skips them everywhere except on the platform they are for.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = {
  android: 'android',
  darwin: 'darwin',
  win32: 'win32',
  freebsd: 'freebsd',
  linux: 'linux',
  openbsd: 'openbsd',
  openharmony: 'openharmony',
  sunos: 'sunos',
  aix: 'aix',
  netbsd: 'netbsd',
};
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'mipsel'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS[part]);
  let cpu = parts.find((part) => CPU.includes(part));
  if (!cpu && parts.includes('arm')) cpu = 'arm';
  const libc =
    parts.includes('musl') || parts.includes('musleabihf')
      ? 'musl'
      : parts.includes('gnu') || parts.includes('gnueabihf')
        ? 'glibc'
        : undefined;
  return {
    os: os ? [os] : undefined,
    cpu: cpu ? [cpu] : undefined,
    libc: os === 'linux' && libc ? [libc] : undefined,
  };
}

let added = 0;
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key === '' ? '' : `${key}/`;
    if (packages[`${base}node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
    if (!/^\d+\.\d+\.\d+/.test(version)) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os && !cpu) continue;
    packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os } : {}),
      ...(cpu ? { cpu } : {}),
      ...(libc ? { libc } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`added ${added} platform entries\n`);
