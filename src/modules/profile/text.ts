import { Type } from '@sinclair/typebox';

/**
 * Free text as users write it. A NUL character cannot be stored in PostgreSQL text, so it is refused at the
 * door as a 400 rather than failing in the database.
 */
export function UserText(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, pattern: '^[^\\u0000]*$' });
}

/** A one-line label such as a display name: no control characters at all. */
export function UserLabel(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });
}
