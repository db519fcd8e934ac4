import { Link } from 'react-router';
import { useAuth } from '../../auth';
import { Loaded } from '../../components/Status';
import { useApi } from '../../lib/hooks';
import { AvatarUpload } from './AvatarUpload';
import { PreferencesForm } from './PreferencesForm';
import { ProfileFacts } from './ProfileFacts';

/** The account's facts, its avatar and its preferences. */
export function ProfileCard() {
  const { me } = useAuth();
  const preferences = useApi('/api/me/preferences');
  return (
    <section className="card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      {me ? <ProfileFacts me={me} /> : null}
      <p>
        <Link to="/progress">Your streak, level and badges</Link>
      </p>
      <Loaded data={preferences.data} error={preferences.error} reload={preferences.reload}>
        {(data) => (
          <>
            <AvatarUpload
              avatarUrl={data.avatarUrl}
              name={me?.username ?? '?'}
              onUploaded={preferences.reload}
            />
            <PreferencesForm preferences={data} onSaved={(next) => preferences.setData(() => next)} />
          </>
        )}
      </Loaded>
    </section>
  );
}
