-- Whether a sign-in from an address and browser the account has not used for 90 days is announced to its owner
-- (a feed item, and a mail to a proven address); on unless the owner turns it off.
ALTER TABLE user_preferences ADD COLUMN notify_new_sign_in boolean NOT NULL DEFAULT true;
