import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** zxcvbn's scale is 0 (guessed at once) to 4; 3 withstands an offline attack on a slow hash for a long time. */
export const MIN_PASSWORD_SCORE = 3;

export interface PasswordStrength {
  score: number;
  acceptable: boolean;
  warning: string | null;
  suggestions: string[];
}

/** What the estimator answers for one password. */
interface Estimate {
  id: number;
  score: number;
  warning: string | null;
  suggestions: string[];
}

/** How long the estimator stays loaded after its last password: it is needed only in bursts (sign-ups, resets). */
const IDLE_MS = 1_000;

const require = createRequire(import.meta.url);
/** zxcvbn's packages, by absolute path, so that the worker finds them wherever the process was started. */
const MODULES = {
  core: require.resolve('@zxcvbn-ts/core'),
  common: require.resolve('@zxcvbn-ts/language-common'),
  en: require.resolve('@zxcvbn-ts/language-en'),
};

/**
 * zxcvbn with the common and English dictionaries, in a thread of its own. Its dictionaries and the ranked maps built
 * from them take about 25 MB of heap: in the main thread they would sit for good inside the server's bounded heap
 * (see docs/operators.md#memory), where the books and the order pipeline need the room. Plain JavaScript, so that it
 * runs the same from the sources, the tests and the build.
 */
const ESTIMATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const { ZxcvbnFactory } = require(workerData.core);
const common = require(workerData.common);
const en = require(workerData.en);
const estimator = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...en.dictionary },
  graphs: common.adjacencyGraphs,
  translations: en.translations,
});
parentPort.on('message', ({ id, password, inputs }) => {
  const result = estimator.check(password, inputs);
  parentPort.postMessage({
    id,
    score: result.score,
    warning: result.feedback.warning ?? null,
    suggestions: result.feedback.suggestions,
  });
});
`;

/** The estimator's thread: started with the first password, ended once idle for IDLE_MS. */
class EstimatorThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<
    number,
    { resolve: (e: Estimate) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;
  private idle: NodeJS.Timeout | null = null;

  check(password: string, inputs: string[]): Promise<Estimate> {
    const worker = this.started();
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const id = this.nextId++;
    return new Promise<Estimate>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, password, inputs });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(ESTIMATOR, { eval: true, workerData: MODULES });
    worker.unref();
    worker.on('message', (estimate: Estimate) => {
      this.pending.get(estimate.id)?.resolve(estimate);
      this.pending.delete(estimate.id);
      if (this.pending.size === 0) this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
    });
    worker.on('error', (error) => this.failed(worker, error));
    worker.on('exit', (code) => this.failed(worker, new Error(`the password estimator exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private stop(): void {
    if (this.pending.size > 0 || !this.worker) return;
    const worker = this.worker;
    this.worker = null;
    void worker.terminate();
  }

  /** The current thread failed: its passwords are refused (a thread stopped when idle had none). */
  private failed(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }
}

const estimator = new EstimatorThread();

/**
 * How hard a password is to guess, knowing the account's own details (its email, the part before the @, its
 * username and names): a password made of them counts as guessed.
 */
export async function passwordStrength(
  password: string,
  ownDetails: (string | null | undefined)[],
): Promise<PasswordStrength> {
  const inputs = ownDetails.flatMap((detail) => {
    if (!detail) return [];
    const value = detail.trim().toLowerCase();
    const local = value.includes('@') ? value.slice(0, value.indexOf('@')) : null;
    return local ? [value, local] : [value];
  });
  // zxcvbn is quadratic in the length; what lies past 100 characters adds nothing a guesser could exploit.
  const result = await estimator.check(password.slice(0, 100), inputs);
  const sameAsDetail = inputs.includes(password.trim().toLowerCase());
  const score = sameAsDetail ? 0 : result.score;
  return {
    score,
    acceptable: score >= MIN_PASSWORD_SCORE,
    warning: sameAsDetail
      ? 'It is your own email or name.'
      : (result.warning ?? (score < MIN_PASSWORD_SCORE ? 'This password is easy to guess.' : null)),
    suggestions: score < MIN_PASSWORD_SCORE ? result.suggestions : [],
  };
}
