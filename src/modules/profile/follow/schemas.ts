import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/http.js';

export const FollowParams = Type.Object({ userId: IdString });

export const FollowBody = Type.Object({
  userId: IdString,
  username: Type.String(),
  following: Type.Literal(true),
  followedAt: Type.String({ format: 'date-time' }),
  followerCount: Type.Integer({ description: "The followed user's follower count" }),
});

export const FollowListItem = Type.Object({
  userId: IdString,
  username: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  followedAt: Type.String({ format: 'date-time' }),
});
