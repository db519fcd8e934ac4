import type { PostgresPool, PostgresPoolClient } from 'kysely';

export interface PreparedStatementOptions {
  /** A statement is prepared once this process has run its text this many times (0: never prepare). */
  threshold: number;
  /** The most statement texts given a name; past it, new texts run unprepared. */
  maxStatements: number;
}

/**
 * The names this process gives the statement texts it prepares: one name per text, whichever pool runs it. Every
 * pool of the process takes its names from the one registry, because a connection can serve more than one pool (the
 * reads that may go to a replica fall back to the primary's connections): a name is then never parsed on a
 * connection for one text and asked of it for another.
 */
export class StatementNames {
  private readonly runs = new Map<string, number>();
  private readonly names = new Map<string, string>();

  constructor(private readonly options: PreparedStatementOptions) {}

  /** The text's name, once it has run `threshold` times (undefined: run it unprepared). */
  of(text: string): string | undefined {
    const { threshold, maxStatements } = this.options;
    if (threshold <= 0) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= maxStatements) return known;
    const count = (this.runs.get(text) ?? 0) + 1;
    if (count < threshold) {
      // Texts seen once or twice (generated lists of varying length) must not grow the counts without bound.
      if (this.runs.size >= maxStatements * 8) this.runs.clear();
      this.runs.set(text, count);
      return undefined;
    }
    this.runs.delete(text);
    const name = `pmx_${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }
}

/**
 * Runs the statements this process repeats as named prepared statements, as PgJDBC does with its
 * `prepareThreshold`: PostgreSQL then parses and plans each of them once per connection instead of on every
 * execution, which matters for the order pipeline's few large statements, run once per batch. A statement text
 * gets a name after `threshold` runs; the driver parses it on each connection the first time that connection runs
 * it, and a replaced connection starts afresh. Statements without parameters (BEGIN, COMMIT, LISTEN) and texts past
 * `maxStatements` run as before, so the names, and the memory the server holds for them, stay bounded.
 */
export function preparingRepeatedStatements(pool: PostgresPool, names: StatementNames): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query(text: string, parameters: readonly unknown[]) {
          const name = parameters.length > 0 ? names.of(text) : undefined;
          if (name === undefined) return client.query(text, parameters);
          return client.query({ name, text, values: [...parameters] } as never);
        },
        release: () => client.release(),
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
