import type { PostgresPool, PostgresPoolClient } from 'kysely';

export interface PreparedStatementOptions {
  /** A statement is prepared once this process has run its text this many times (0: never prepare). */
  threshold: number;
  /** The most statement texts given a name; past it, new texts run unprepared. */
  maxStatements: number;
}

/**
 * Runs the statements this process repeats as named prepared statements, as PgJDBC does with its
 * `prepareThreshold`: PostgreSQL then parses and plans each of them once per connection instead of on every
 * execution, which matters for the order pipeline's few large statements, run once per batch. A statement text
 * gets a name after `threshold` runs; the driver parses it on each connection the first time that connection runs
 * it, and a replaced connection starts afresh. Statements without parameters (BEGIN, COMMIT, LISTEN) and texts past
 * `maxStatements` run as before, so the names, and the memory the server holds for them, stay bounded.
 */
export function preparingRepeatedStatements(
  pool: PostgresPool,
  options: PreparedStatementOptions,
): PostgresPool {
  if (options.threshold <= 0) return pool;
  const runs = new Map<string, number>();
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || names.size >= options.maxStatements) return known;
    const count = (runs.get(text) ?? 0) + 1;
    if (count < options.threshold) {
      // Texts seen once or twice (generated lists of varying length) must not grow the counts without bound.
      if (runs.size >= options.maxStatements * 8) runs.clear();
      runs.set(text, count);
      return undefined;
    }
    runs.delete(text);
    const name = `pmx_${names.size + 1}`;
    names.set(text, name);
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query(text: string, parameters: readonly unknown[]) {
          const name = parameters.length > 0 ? nameOf(text) : undefined;
          if (name === undefined) return client.query(text, parameters);
          return client.query({ name, text, values: [...parameters] } as never);
        },
        release: () => client.release(),
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
