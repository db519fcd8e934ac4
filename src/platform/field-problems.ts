import type { FastifyError } from 'fastify';

/** One thing wrong with a request, by the field it is in (`body.price`, `query.limit`). */
export interface FieldProblem {
  field: string;
  message: string;
}

type AjvIssue = {
  keyword?: string;
  instancePath?: string;
  params?: Record<string, unknown>;
  message?: string;
};

/**
 * A union of literals (TypeBox's enum) fails as one `const` issue per literal and an `anyOf`: one issue listing the
 * allowed values instead.
 */
function collapseLiterals(issues: AjvIssue[]): AjvIssue[] {
  const literals = new Map<string, unknown[]>();
  for (const issue of issues)
    if (issue.keyword === 'const')
      literals.set(issue.instancePath ?? '', [
        ...(literals.get(issue.instancePath ?? '') ?? []),
        issue.params?.allowedValue,
      ]);
  const unions = new Set(issues.filter((i) => i.keyword === 'anyOf').map((i) => i.instancePath ?? ''));
  return issues.flatMap((issue) => {
    const path = issue.instancePath ?? '';
    if (issue.keyword === 'const' && unions.has(path)) return [];
    if (issue.keyword === 'anyOf' && literals.has(path))
      return [{ ...issue, params: { allowedValues: literals.get(path) } }];
    return [issue];
  });
}

/** The fields of a request its schema refused, each with what is wrong with it. */
export function fieldsOf(error: FastifyError): FieldProblem[] {
  const issues = collapseLiterals((error.validation ?? []) as AjvIssue[]);
  // Query parameters are named `query.<name>` wherever an error names them (the cursor's own error does too).
  const context = error.validationContext ?? 'body';
  const where = context === 'querystring' ? 'query' : context;
  return issues.map((issue) => {
    const missing = issue.params?.missingProperty;
    const extra = issue.params?.additionalProperty;
    const path = (issue.instancePath ?? '').split('/').filter(Boolean).join('.');
    const name = [where, path, typeof missing === 'string' ? missing : typeof extra === 'string' ? extra : '']
      .filter(Boolean)
      .join('.');
    return { field: name, message: issueMessage(issue, extra) };
  });
}

/** What is wrong, in words; an enum's allowed values are listed. */
function issueMessage(issue: AjvIssue, extra: unknown): string {
  if (typeof extra === 'string') return 'is not an allowed field';
  const allowed = issue.params?.allowedValues ?? issue.params?.allowedValue;
  if (Array.isArray(allowed)) return `must be one of: ${allowed.map(String).join(', ')}`;
  if (allowed !== undefined) return `must be ${String(allowed)}`;
  return issue.message ?? 'is invalid';
}
