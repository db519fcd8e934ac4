import { useAuth } from '../auth';
import { SignInPrompt } from '../components/Status';
import { useDocumentTitle } from '../lib/hooks';
import { ApiKeys } from './account/ApiKeys';
import { PasswordAndSessions } from './account/PasswordAndSessions';
import { ProfileCard } from './account/ProfileCard';
import { ReferralCard } from './account/ReferralCard';
import { SecondFactors } from './account/SecondFactors';
import { SecurityLog } from './account/SecurityLog';
import { SignOutCard } from './account/SignOutCard';
import { Webhooks } from './account/Webhooks';

/** The account page: one card for each thing a trader manages about their account, in web/src/pages/account/. */
export function AccountPage() {
  useDocumentTitle('Account and security');
  const { signedIn } = useAuth();
  if (!signedIn) {
    return (
      <div className="page">
        <h1>Account and security</h1>
        <SignInPrompt what="manage your account" />
      </div>
    );
  }
  return (
    <div className="page narrow">
      <h1>Account and security</h1>
      <ProfileCard />
      <PasswordAndSessions />
      <SecondFactors />
      <ApiKeys />
      <SecurityLog />
      <Webhooks />
      <ReferralCard />
      <SignOutCard />
    </div>
  );
}
