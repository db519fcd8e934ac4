import { describe, expect, it } from 'vitest';
import {
  createEventBody,
  type EventDraft,
  exclusiveProblem,
  isCatchAll,
  type OptionDraft,
} from './event-draft';

const option = (label: string, chance = '', liquidity = '100'): OptionDraft => ({ label, chance, liquidity });
const draft = (change: Partial<EventDraft>): EventDraft => ({
  title: ' Who wins? ',
  category: ' cricket ',
  description: '  ',
  closesAt: '2027-01-01T12:00',
  options: [option('Yes')],
  openNow: false,
  exclusive: false,
  marketLiquidity: '1000',
  ...change,
});

describe('an event drafted in the console', () => {
  it('gives each option of an ordinary event its own maker’s liquidity, in cents', () => {
    const body = createEventBody(draft({ options: [option(' Yes ', '', '12.5'), option('No', '', ' ')] }));
    expect(body).toEqual({
      title: 'Who wins?',
      category: 'cricket',
      closesAt: new Date('2027-01-01T12:00').toISOString(),
      options: [
        { label: 'Yes', liquidityCents: 1250 },
        { label: 'No', liquidityCents: 0 },
      ],
      open: false,
    });
  });

  it('gives an exclusive event one maker, and starting chances only when every option has one', () => {
    const even = createEventBody(
      draft({ exclusive: true, options: [option('A'), option('B')], openNow: true }),
    );
    expect(even).toMatchObject({ exclusive: true, liquidityCents: 100_000, open: true });
    expect(even.options).toEqual([{ label: 'A' }, { label: 'B' }]);
    const chances = createEventBody(
      draft({ exclusive: true, options: [option('A', '30'), option('B', '70')] }),
    );
    expect(chances.options).toEqual([
      { label: 'A', initialPriceCents: 30 },
      { label: 'B', initialPriceCents: 70 },
    ]);
  });

  it('says what stands in the way of an exclusive event', () => {
    expect(exclusiveProblem([option('A')])).toBe(
      'An event where exactly one option wins needs at least two options.',
    );
    expect(exclusiveProblem([option('A', '40'), option('B')])).toBe(
      'Give every option a starting chance, or none for even odds.',
    );
    expect(exclusiveProblem([option('A', '40'), option('B', '100')])).toBe(
      'Each starting chance is a whole number of percent from 1 to 99.',
    );
    expect(exclusiveProblem([option('A', '40'), option('B', '60')])).toBeNull();
    expect(isCatchAll('  any other team')).toBe(true);
    expect(isCatchAll('Anyone else')).toBe(false);
  });
});
