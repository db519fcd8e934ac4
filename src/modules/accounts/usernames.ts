/**
 * Names that would let an account pass for the exchange itself, refused with their look-alikes. A name is compared
 * by its skeleton: NFKC (full-width and styled letters become plain ones), lower case, look-alike letters and
 * digits mapped to the letter they imitate, separators dropped and doubled letters made single, so `ADM1N`,
 * `adm_in`, `suppport` and a Cyrillic `аdmin` all read `admin` or `suport`.
 */

/** Refused as the whole name, and as its start or end (`admin_bob`, `teamsupport`). */
const AUTHORITY_WORDS = [
  'admin',
  'administrator',
  'moderator',
  'support',
  'official',
  'sysadmin',
  'security',
  'helpdesk',
];

/** Refused as the whole name only (short or common inside other names). */
const RESERVED_NAMES = [
  'root',
  'staff',
  'system',
  'mod',
  'mods',
  'team',
  'help',
  'owner',
  'operator',
  'api',
  'service',
  'exchange',
  'null',
  'undefined',
  'anonymous',
  'everyone',
  'webmaster',
  'postmaster',
  'noreply',
];

/** Characters read as another: digits and symbols standing for letters, Cyrillic and Greek letters like Latin ones. */
const CONFUSABLES: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '!': 'i',
  '|': 'i',
  l: 'i',
  '3': 'e',
  '4': 'a',
  '@': 'a',
  '5': 's',
  $: 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
};

/** What a name looks like, for comparing it with the reserved ones. */
export function usernameSkeleton(name: string): string {
  const letters = [...name.normalize('NFKC').toLowerCase().normalize('NFKD')]
    .filter((char) => !/\p{M}/u.test(char))
    .map((char) => CONFUSABLES[char] ?? char)
    .filter((char) => /[\p{L}\p{N}]/u.test(char))
    .join('');
  return letters.replace(/(.)\1+/gu, '$1');
}

const AUTHORITY_SKELETONS = AUTHORITY_WORDS.map(usernameSkeleton);
const RESERVED_SKELETONS = new Set([...RESERVED_NAMES, ...AUTHORITY_WORDS].map(usernameSkeleton));

/** Whether a name is reserved, or looks like one that is. */
export function isReservedUsername(name: string): boolean {
  const skeleton = usernameSkeleton(name);
  if (RESERVED_SKELETONS.has(skeleton)) return true;
  return AUTHORITY_SKELETONS.some((word) => skeleton.startsWith(word) || skeleton.endsWith(word));
}
