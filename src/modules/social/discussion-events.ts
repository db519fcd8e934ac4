import type { Queryable } from '../../platform/db/types.js';
import type { DiscussionRepository } from './discussion-repository.js';

/** What a change did to a post: it appeared, its likes or comments changed, or it is gone (deleted or hidden). */
export type DiscussionChangeKind = 'created' | 'updated' | 'removed';

/** A post as it stands after a change, announced inside the change's own transaction. */
export interface DiscussionChange {
  eventId: number;
  postId: number;
  change: DiscussionChangeKind;
  likeCount: number;
  commentCount: number;
}

export type DiscussionListener = (db: Queryable, change: DiscussionChange) => Promise<void>;

/**
 * Tells listeners (the live stream) about every change to a market's discussion: a post, a like, a comment, a
 * deletion or a moderator hiding something. Called by whatever made the change, with its transaction.
 */
export class DiscussionEvents {
  private readonly listeners: DiscussionListener[] = [];

  constructor(private readonly discussion: DiscussionRepository) {}

  on(listener: DiscussionListener): void {
    this.listeners.push(listener);
  }

  async announce(db: Queryable, postId: number, change: DiscussionChangeKind): Promise<void> {
    if (this.listeners.length === 0) return;
    const state = await this.discussion.postState(db, postId);
    if (!state) return;
    const announced: DiscussionChange = {
      eventId: state.event_id,
      postId,
      change: state.removed ? 'removed' : change,
      likeCount: Number(state.like_count),
      commentCount: Number(state.comment_count),
    };
    for (const listener of this.listeners) await listener(db, announced);
  }
}
