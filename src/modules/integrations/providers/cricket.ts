import { dateOrNull, isRecord, plainText } from './articles.js';
import { fetchProviderJson, malformed, type ProviderHttpOptions } from './http.js';

export interface LiveTeam {
  name: string;
  score: string | null;
  overs: string | null;
}

export interface LiveMatch {
  id: string;
  status: string;
  startedAt: Date | null;
  teams: LiveTeam[];
}

/** Current cricket matches with their scores. */
export interface CricketProvider {
  liveMatches(): Promise<LiveMatch[]>;
}

/**
 * `GET <CRICKET_API_URL>` with the key in `X-Api-Key`, answering
 * `{"matches": [{"id", "status", "startedAt"?, "teams": [{"name", "score"?, "overs"?}]}]}`.
 */
export class HttpCricketClient implements CricketProvider {
  constructor(
    private readonly endpoint: { url: string; apiKey: string | null },
    private readonly http: ProviderHttpOptions,
  ) {}

  async liveMatches(): Promise<LiveMatch[]> {
    const body = await fetchProviderJson(
      {
        url: this.endpoint.url,
        accept: 'application/json',
        headers: this.endpoint.apiKey ? { 'x-api-key': this.endpoint.apiKey } : {},
      },
      this.http,
    );
    return parseLiveMatches(body);
  }
}

export function parseLiveMatches(body: unknown): LiveMatch[] {
  if (!isRecord(body) || !Array.isArray(body.matches)) throw malformed('expected {"matches": [...]}');
  const matches: LiveMatch[] = [];
  for (const raw of body.matches) {
    if (!isRecord(raw)) continue;
    const id = typeof raw.id === 'number' ? String(raw.id) : plainText(raw.id, 100);
    if (id === null || !Array.isArray(raw.teams)) continue;
    const teams = raw.teams.flatMap((team): LiveTeam[] => {
      const name = isRecord(team) ? plainText(team.name, 100) : null;
      if (!isRecord(team) || name === null) return [];
      return [{ name, score: scoreText(team.score), overs: scoreText(team.overs) }];
    });
    matches.push({
      id,
      status: plainText(raw.status, 200) ?? '',
      startedAt: dateOrNull(raw.startedAt),
      teams,
    });
  }
  return matches;
}

/** Scores ("145/3") and overs ("17.2") are labels, not numbers: 17.2 overs is 17 overs and 2 balls. */
function scoreText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return plainText(value, 40);
}
