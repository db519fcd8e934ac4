import { Type } from '@sinclair/typebox';
import { UserLabel, UserText } from '../text.js';

export const BIO_MAX_LENGTH = 280;
export const DISPLAY_NAME_MAX_LENGTH = 50;

const Notifications = {
  trades: Type.Boolean({ description: 'Fills, cancellations, expiries, settlements and protections' }),
  social: Type.Boolean({ description: 'New followers, likes, comments and replies' }),
  competitions: Type.Boolean({ description: 'Tournaments and head-to-head challenges' }),
  marketing: Type.Boolean({ description: 'Product news and offers (off by default)' }),
  newSignIn: Type.Boolean({
    description:
      'A sign-in from an address and browser not seen on the account for 90 days: a feed item (security.new_login), ' +
      'and a mail when the address is proven (on by default)',
  }),
};

export const PreferencesBody = Type.Object({
  displayName: Type.Union([Type.String(), Type.Null()], { description: 'Shown instead of the username' }),
  bio: Type.String({ description: `At most ${BIO_MAX_LENGTH} characters` }),
  darkMode: Type.Boolean(),
  timezone: Type.Union([Type.String(), Type.Null()], { description: 'IANA time zone, e.g. Asia/Kolkata' }),
  notifications: Type.Object(Notifications, { description: 'Which categories reach your feed' }),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const PreferencesPatch = Type.Object(
  {
    displayName: Type.Optional(
      Type.Union([UserLabel({ minLength: 1, maxLength: DISPLAY_NAME_MAX_LENGTH }), Type.Null()], {
        description: `1..${DISPLAY_NAME_MAX_LENGTH} characters, no control characters; null clears it`,
      }),
    ),
    bio: Type.Optional(
      UserText({ maxLength: BIO_MAX_LENGTH, description: `0..${BIO_MAX_LENGTH} characters; "" clears it` }),
    ),
    darkMode: Type.Optional(Type.Boolean()),
    timezone: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description: 'IANA time zone name; null clears it',
      }),
    ),
    notifications: Type.Optional(
      Type.Object(
        {
          trades: Type.Optional(Notifications.trades),
          social: Type.Optional(Notifications.social),
          competitions: Type.Optional(Notifications.competitions),
          marketing: Type.Optional(Notifications.marketing),
          newSignIn: Type.Optional(Notifications.newSignIn),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
