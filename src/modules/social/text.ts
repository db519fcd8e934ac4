import { ValidationError } from '../../platform/errors.js';

/**
 * User-written text is stored and returned exactly as written, trimmed, and never transformed: the API speaks
 * JSON, and it is the client's job to put text into a page as text. Limits count characters (code points).
 */
export const TEXT_LIMITS = {
  post: 2000,
  comment: 1000,
  reportReason: 500,
  moderationNote: 500,
  suggestionTitle: 140,
  suggestionDescription: 2000,
  suggestionCategory: 40,
  suggestionOption: 60,
  resolutionSource: 500,
  rejectionReason: 500,
} as const;

/** Trims `value` and checks it is 1..max characters; NUL cannot be stored, so it is refused too. */
export function plainText(value: string, field: string, max: number): string {
  const text = value.trim();
  const length = [...text].length;
  if (length === 0) throw new ValidationError(`${field} must not be empty`, [problem(field, 'is empty')]);
  if (length > max) {
    throw new ValidationError(`${field} must be at most ${max} characters`, [
      problem(field, `is longer than ${max} characters`),
    ]);
  }
  if (text.includes('\u0000')) {
    throw new ValidationError(`${field} must not contain NUL characters`, [
      problem(field, 'contains a NUL character'),
    ]);
  }
  return text;
}

/** Like plainText, but an absent or blank value is allowed and becomes null. */
export function optionalText(value: string | undefined, field: string, max: number): string | null {
  if (value === undefined || value.trim() === '') return null;
  return plainText(value, field, max);
}

function problem(field: string, message: string) {
  return { field: `body.${field}`, message };
}
