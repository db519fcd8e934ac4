import type { MarketsService, NewEventInput } from './service.js';

const DAY = 86_400_000;

/** A small catalogue so that a newcomer sees live, tradable markets at once. */
export function demoCatalogue(now = Date.now()): NewEventInput[] {
  const inDays = (days: number) => new Date(now + days * DAY).toISOString();
  return [
    {
      slug: 'ind-vs-aus-1st-odi',
      title: 'India vs Australia, 1st ODI: who wins?',
      description:
        'One-day international at Wankhede Stadium, Mumbai. A tie or no result resolves both options VOID.',
      category: 'cricket',
      featured: true,
      resolutionSource: 'Official ICC scorecard',
      closesAt: inDays(3),
      options: [
        { label: 'India', liquidityCents: 100_000, initialPriceCents: 58 },
        { label: 'Australia', liquidityCents: 100_000, initialPriceCents: 42 },
      ],
      open: true,
    },
    {
      slug: 'ipl-2027-champion',
      title: 'Who will win IPL 2027?',
      description: 'The team that wins the IPL 2027 final.',
      category: 'cricket',
      featured: true,
      resolutionSource: 'BCCI / IPL official announcement',
      closesAt: inDays(150),
      options: [
        { label: 'Mumbai Indians', liquidityCents: 50_000, initialPriceCents: 18 },
        { label: 'Chennai Super Kings', liquidityCents: 50_000, initialPriceCents: 17 },
        { label: 'Royal Challengers Bengaluru', liquidityCents: 50_000, initialPriceCents: 15 },
        { label: 'Kolkata Knight Riders', liquidityCents: 50_000, initialPriceCents: 12 },
      ],
      open: true,
    },
    {
      slug: 'rbi-repo-rate-cut-february',
      title: 'Will the RBI cut the repo rate at its February meeting?',
      description: 'Resolves YES if the Monetary Policy Committee announces a cut of the policy repo rate.',
      category: 'economics',
      featured: false,
      resolutionSource: 'Reserve Bank of India monetary policy statement',
      closesAt: inDays(75),
      options: [{ label: 'Rate cut', liquidityCents: 50_000, initialPriceCents: 35 }],
      open: true,
    },
    {
      slug: 'india-cpi-below-4-percent',
      title: 'Will India’s CPI inflation print below 4% next month?',
      description: 'Year-on-year all-India CPI inflation as first published by MoSPI.',
      category: 'economics',
      featured: false,
      resolutionSource: 'MoSPI press release',
      closesAt: inDays(30),
      options: [{ label: 'Below 4%', liquidityCents: 30_000, initialPriceCents: 55 }],
      open: true,
    },
    {
      slug: 'maharashtra-turnout-over-65',
      title: 'Will voter turnout in the next Maharashtra assembly election exceed 65%?',
      description: 'Final turnout as published by the Election Commission of India.',
      category: 'elections',
      featured: true,
      resolutionSource: 'Election Commission of India',
      closesAt: inDays(200),
      options: [{ label: 'Over 65%', liquidityCents: 40_000, initialPriceCents: 48 }],
      open: true,
    },
  ];
}

export async function seedDemoCatalogue(markets: MarketsService): Promise<number> {
  const events = demoCatalogue();
  for (const event of events) await markets.createEvent(event);
  return events.length;
}
