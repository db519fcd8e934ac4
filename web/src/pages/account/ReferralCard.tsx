import { CopyField } from '../../components/CopyField';
import { ErrorMessage } from '../../components/Status';
import { formatCredits } from '../../lib/format';
import { useApi } from '../../lib/hooks';

/** The trader's invite link and what it has earned so far. */
export function ReferralCard() {
  const referral = useApi('/api/me/referral');
  if (!referral.data) return referral.error ? <ErrorMessage error={referral.error} /> : null;
  const data = referral.data;
  return (
    <section className="card" aria-labelledby="referral-heading">
      <h2 id="referral-heading">Invite friends</h2>
      <p className="muted">
        You earn {formatCredits(data.rewardCents)} when someone you invite makes their first trade. So far:{' '}
        {data.referredCount} joined, {data.rewardedCount} traded, {formatCredits(data.totalEarnedCents)}{' '}
        earned.
      </p>
      <CopyField label="Your invite link" value={data.link} />
    </section>
  );
}
