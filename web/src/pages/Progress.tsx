import type { Badges, Streak, Xp } from '../api/types';
import { useAuth } from '../auth';
import { Loaded, SignInPrompt } from '../components/Status';
import { formatCredits, formatDay, formatNumber } from '../lib/format';
import { useApi, useDocumentTitle } from '../lib/hooks';

function StreakCard({ streak }: { streak: Streak }) {
  return (
    <section className="card" aria-labelledby="streak-heading">
      <h2 id="streak-heading">Daily streak</h2>
      <p className="big-number">
        {streak.current} <span className="muted">day{streak.current === 1 ? '' : 's'}</span>
      </p>
      <p className="muted">
        Longest: {streak.longest} day{streak.longest === 1 ? '' : 's'}. Next bonus:{' '}
        {formatCredits(streak.nextBonus.bonusCents)} for day {streak.nextBonus.day},{' '}
        {streak.nextBonus.availableOn === 'today' ? 'when you log in today' : 'when you log in tomorrow'}.
      </p>
    </section>
  );
}

function XpCard({ xp }: { xp: Xp }) {
  const percent = Math.round(xp.progressBps / 100);
  return (
    <section className="card" aria-labelledby="xp-heading">
      <h2 id="xp-heading">Level {xp.level}</h2>
      <p>
        {formatNumber(xp.xp)} XP · {formatNumber(xp.nextLevelXp - xp.xp)} XP to level {xp.level + 1}
      </p>
      <div
        className="progress"
        role="progressbar"
        aria-label={`Progress to level ${xp.level + 1}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <span className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <dl className="facts small">
        <div>
          <dt>Trades</dt>
          <dd>{xp.breakdown.trades} XP</dd>
        </div>
        <div>
          <dt>Volume</dt>
          <dd>{xp.breakdown.volume} XP</dd>
        </div>
        <div>
          <dt>Streak days</dt>
          <dd>{xp.breakdown.streakDays} XP</dd>
        </div>
        <div>
          <dt>Correct predictions</dt>
          <dd>{xp.breakdown.correctPredictions} XP</dd>
        </div>
        <div>
          <dt>Badges</dt>
          <dd>{xp.breakdown.badges} XP</dd>
        </div>
      </dl>
    </section>
  );
}

function BadgesCard({ badges }: { badges: Badges }) {
  return (
    <section className="card" aria-labelledby="badges-heading">
      <h2 id="badges-heading">Badges</h2>
      <ul className="badges">
        {badges.earned.map((badge) => (
          <li key={badge.id} className="badge earned">
            <strong>{badge.name}</strong>
            <span className="small">{badge.criteria}</span>
            <span className="muted small">Earned {formatDay(badge.earnedAt)}</span>
          </li>
        ))}
        {badges.locked.map((badge) => (
          <li key={badge.id} className="badge locked">
            <strong>
              <span className="visually-hidden">Locked: </span>
              {badge.name}
            </strong>
            <span className="small">{badge.criteria}</span>
            <span className="muted small">
              {badge.progress.unit === 'cents'
                ? `${formatCredits(Math.min(badge.progress.current, badge.progress.target))} of ${formatCredits(badge.progress.target)}`
                : `${formatNumber(Math.min(badge.progress.current, badge.progress.target))} of ${formatNumber(badge.progress.target)}`}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ProgressPage() {
  useDocumentTitle('Your progress');
  const { signedIn } = useAuth();
  const streak = useApi(signedIn ? '/api/me/streak' : null);
  const xp = useApi(signedIn ? '/api/me/xp' : null);
  const badges = useApi(signedIn ? '/api/me/badges' : null);
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Your progress</h1>
        <SignInPrompt what="see your streak, level and badges" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Your progress</h1>
      <div className="grid two">
        <Loaded data={streak.data} error={streak.error} reload={streak.reload}>
          {(data) => <StreakCard streak={data} />}
        </Loaded>
        <Loaded data={xp.data} error={xp.error} reload={xp.reload}>
          {(data) => <XpCard xp={data} />}
        </Loaded>
      </div>
      <Loaded data={badges.data} error={badges.error} reload={badges.reload}>
        {(data) => <BadgesCard badges={data} />}
      </Loaded>
    </div>
  );
}
