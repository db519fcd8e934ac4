import { spawn } from 'node:child_process';

/**
 * Runs one of the project's scripts (`scripts/…`) under tsx as its own process with `env` added, and resolves with
 * its exit code and everything it printed (also written to this process's output, for the test log).
 */
export async function runScript(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  process.stdout.write(output);
  return { code, output };
}
