import type { CreateEventRequest } from '../../../api/console-types';
import { toCents } from '../credits';

export interface OptionDraft {
  label: string;
  liquidity: string;
  /** An exclusive event's starting chance of the option, in percent; blank for even odds. */
  chance: string;
}

export const NEW_OPTION: OptionDraft = { label: '', liquidity: '100', chance: '' };
/** A catch-all keeps an exclusive event exhaustive: whatever happens, exactly one option wins. */
export const CATCH_ALL = 'Any other outcome';

export function isCatchAll(label: string): boolean {
  return /^any other\b/i.test(label.trim());
}

/**
 * What stands in the way of creating an exclusive event: too few options, or starting chances given for some
 * options and not for others (the API takes all or none).
 */
export function exclusiveProblem(options: OptionDraft[]): string | null {
  if (options.length < 2) return 'An event where exactly one option wins needs at least two options.';
  const given = options.filter((option) => option.chance.trim() !== '').length;
  if (given > 0 && given < options.length)
    return 'Give every option a starting chance, or none for even odds.';
  const bad = options.some((option) => {
    const value = Number(option.chance);
    return option.chance.trim() !== '' && !(Number.isInteger(value) && value >= 1 && value <= 99);
  });
  return bad ? 'Each starting chance is a whole number of percent from 1 to 99.' : null;
}

export function chancesGiven(options: OptionDraft[]): boolean {
  return options.every((option) => option.chance.trim() !== '');
}

/** The starting chances typed, added up (blank and unreadable ones count as 0). */
export function chanceTotal(options: OptionDraft[]): number {
  return options.reduce((sum, option) => sum + (Number(option.chance) || 0), 0);
}

export interface EventDraft {
  title: string;
  category: string;
  description: string;
  /** The datetime-local input's value, in the operator's time zone. */
  closesAt: string;
  options: OptionDraft[];
  openNow: boolean;
  exclusive: boolean;
  /** An exclusive event's one house maker's liquidity, in credits. */
  marketLiquidity: string;
}

/**
 * The request that creates the drafted event: an exclusive one with the one maker's liquidity and, when every
 * option has one, the starting chances; otherwise each option with its own maker's liquidity.
 */
export function createEventBody(draft: EventDraft): CreateEventRequest {
  const { options, marketLiquidity } = draft;
  const withChances = chancesGiven(options);
  const kind = draft.exclusive
    ? {
        exclusive: true,
        liquidityCents: marketLiquidity.trim() ? toCents(marketLiquidity) : 0,
        options: options.map((option) => ({
          label: option.label.trim(),
          ...(withChances ? { initialPriceCents: Number(option.chance) } : {}),
        })),
      }
    : {
        options: options.map((option) => ({
          label: option.label.trim(),
          liquidityCents: option.liquidity.trim() ? toCents(option.liquidity) : 0,
        })),
      };
  return {
    title: draft.title.trim(),
    category: draft.category.trim(),
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    closesAt: new Date(draft.closesAt).toISOString(),
    ...kind,
    open: draft.openNow,
  };
}
