import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonWords } from '@zxcvbn-ts/language-common';
import { dictionary as englishWords, translations } from '@zxcvbn-ts/language-en';

/** zxcvbn's scale is 0 (guessed at once) to 4; 3 withstands an offline attack on a slow hash for a long time. */
export const MIN_PASSWORD_SCORE = 3;

const estimator = new ZxcvbnFactory({
  dictionary: { ...commonWords, ...englishWords },
  graphs: adjacencyGraphs,
  translations,
});

export interface PasswordStrength {
  score: number;
  acceptable: boolean;
  warning: string | null;
  suggestions: string[];
}

/**
 * How hard a password is to guess, knowing the account's own details (its email, the part before the @, its
 * username and names): a password made of them counts as guessed.
 */
export function passwordStrength(
  password: string,
  ownDetails: (string | null | undefined)[],
): PasswordStrength {
  const inputs = ownDetails.flatMap((detail) => {
    if (!detail) return [];
    const value = detail.trim().toLowerCase();
    const local = value.includes('@') ? value.slice(0, value.indexOf('@')) : null;
    return local ? [value, local] : [value];
  });
  // zxcvbn is quadratic in the length; what lies past 100 characters adds nothing a guesser could exploit.
  const result = estimator.check(password.slice(0, 100), inputs);
  const sameAsDetail = inputs.includes(password.trim().toLowerCase());
  const score = sameAsDetail ? 0 : result.score;
  return {
    score,
    acceptable: score >= MIN_PASSWORD_SCORE,
    warning: sameAsDetail
      ? 'It is your own email or name.'
      : (result.feedback.warning ?? (score < MIN_PASSWORD_SCORE ? 'This password is easy to guess.' : null)),
    suggestions: score < MIN_PASSWORD_SCORE ? result.feedback.suggestions : [],
  };
}
