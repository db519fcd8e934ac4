-- Signed webhooks: subscriptions, the transactional outbox of events, one delivery per event and subscription,
-- and every attempt made to deliver it.
CREATE TABLE webhook_subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  url text NOT NULL,
  description text,
  -- A JSON array of the event types delivered; NULL means every type, including ones added later.
  event_types jsonb,
  -- Kept in full because every delivery is signed with it (Standard Webhooks "whsec_" form).
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_user_idx ON webhook_subscriptions (user_id, id);

-- The outbox: written in the same transaction as the change it describes.
CREATE TABLE webhook_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- Sent as the webhook-id header and the body's id: the receiver's deduplication key.
  message_id text NOT NULL UNIQUE,
  user_id bigint NOT NULL REFERENCES users (id),
  type text NOT NULL,
  -- The exact JSON body, so every attempt sends the same bytes.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  subscription_id bigint NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  -- When a pending delivery is next due; while an attempt is in flight, the end of that attempt's lease.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, id DESC);

CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  -- When the next attempt was scheduled after this one (NULL after the last one).
  next_attempt_at timestamptz
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
