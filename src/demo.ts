import { randomBytes } from 'node:crypto';
import type { AccountsService } from './modules/accounts/service.js';
import type { TournamentsService } from './modules/competitions/tournaments.js';
import type { MarketEditing, NewEventInput } from './modules/markets/editing.js';
import type { DiscussionService } from './modules/social/discussion.js';

const DAY = 86_400_000;

/** A small catalogue so that a newcomer sees live, tradable markets at once. */
export function demoCatalogue(now = Date.now()): NewEventInput[] {
  const inDays = (days: number) => new Date(now + days * DAY).toISOString();
  return [
    {
      slug: 'ind-vs-aus-1st-odi',
      title: 'India vs Australia, 1st ODI: who wins?',
      description:
        'One-day international at Wankhede Stadium, Mumbai. Exactly one team wins; a tie or no result resolves ' +
        'both options VOID.',
      category: 'cricket',
      featured: true,
      resolutionSource: 'Official ICC scorecard',
      closesAt: inDays(3),
      exclusive: true,
      liquidityCents: 100_000,
      options: [
        { label: 'India', initialPriceCents: 58 },
        { label: 'Australia', initialPriceCents: 42 },
      ],
      open: true,
    },
    {
      slug: 'ipl-2027-champion',
      title: 'Who will win IPL 2027?',
      description:
        'The team that wins the IPL 2027 final. Exactly one option wins: a team not listed wins as "Any other team".',
      category: 'cricket',
      featured: true,
      resolutionSource: 'BCCI / IPL official announcement',
      closesAt: inDays(150),
      exclusive: true,
      liquidityCents: 100_000,
      options: [
        { label: 'Mumbai Indians', initialPriceCents: 18 },
        { label: 'Chennai Super Kings', initialPriceCents: 17 },
        { label: 'Royal Challengers Bengaluru', initialPriceCents: 15 },
        { label: 'Kolkata Knight Riders', initialPriceCents: 12 },
        { label: 'Any other team', initialPriceCents: 38 },
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

export async function seedDemoCatalogue(markets: Pick<MarketEditing, 'createEvent'>): Promise<number> {
  const events = demoCatalogue();
  for (const event of events) await markets.createEvent(event);
  return events.length;
}

/** Demo traders: their passwords are random and never shown, so nobody can log in as them. */
const DEMO_TRADERS = ['predict_team', 'asha_k', 'rohan_m'] as const;

const DEMO_POSTS: { author: (typeof DEMO_TRADERS)[number]; eventSlug: string; text: string }[] = [
  {
    author: 'asha_k',
    eventSlug: 'ind-vs-aus-1st-odi',
    text: 'Wankhede has been a chasing ground all season, and India bat deep. 58% feels low to me.',
  },
  {
    author: 'rohan_m',
    eventSlug: 'ind-vs-aus-1st-odi',
    text: 'Australia’s new-ball attack is the difference in the first ten overs. Holding my Australia shares.',
  },
  {
    author: 'asha_k',
    eventSlug: 'rbi-repo-rate-cut-february',
    text: 'Core inflation has cooled for three months in a row; a cut is more likely than the price says.',
  },
  {
    author: 'rohan_m',
    eventSlug: 'india-cpi-below-4-percent',
    text: 'Vegetable prices turned up again in the last fortnight. I would not buy Below 4% at 55¢.',
  },
];

export interface DemoServices {
  markets: Pick<MarketEditing, 'createEvent'>;
  accounts: Pick<AccountsService, 'register'>;
  discussion: Pick<DiscussionService, 'createPost'>;
  tournaments: Pick<TournamentsService, 'create' | 'join'>;
}

/**
 * The demo as a living product: the catalogue, a few traders discussing it, and a tournament running on its
 * markets from now for two weeks, with two of them entered.
 */
export async function seedDemo(services: DemoServices, now = Date.now()): Promise<number> {
  const loaded = await seedDemoCatalogue(services.markets);
  const ids = new Map<string, number>();
  for (const username of DEMO_TRADERS) {
    const { user } = await services.accounts.register({
      email: `${username.replace('_', '.')}@demo.predict.example`,
      username,
      password: randomBytes(24).toString('base64url'),
    });
    ids.set(username, user.id);
  }
  for (const post of DEMO_POSTS) {
    await services.discussion.createPost(ids.get(post.author)!, {
      eventSlug: post.eventSlug,
      text: post.text,
    });
  }
  await services.tournaments.create(ids.get('predict_team')!, {
    slug: 'cricket-and-economy-cup',
    title: 'Cricket and Economy Cup',
    description: 'Two weeks on the ODI, the IPL and India’s economy. The best returns share 1,000 credits.',
    startsAt: new Date(now - 60_000).toISOString(),
    endsAt: new Date(now + 14 * DAY).toISOString(),
    eventSlugs: [
      'ind-vs-aus-1st-odi',
      'ipl-2027-champion',
      'rbi-repo-rate-cut-february',
      'india-cpi-below-4-percent',
    ],
    prizes: [50_000, 30_000, 20_000],
  });
  for (const username of ['asha_k', 'rohan_m']) {
    await services.tournaments.join(ids.get(username)!, 'cricket-and-economy-cup');
  }
  return loaded;
}
