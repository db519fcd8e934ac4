-- News sources, admin-attached news, shared AI summaries, sponsors and cricket match links of events.

CREATE TABLE event_news_sources (
  event_id bigint PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  feed_urls jsonb NOT NULL DEFAULT '[]',
  search_query text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE event_news_items (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  title text NOT NULL,
  url text NOT NULL,
  source text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  created_by bigint REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, url)
);

-- One summary per set of news items (and model), so every instance reuses the first one written.
CREATE TABLE news_summaries (
  items_hash text PRIMARY KEY,
  summary text NOT NULL,
  model text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE event_sponsors (
  event_id bigint PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  name text NOT NULL,
  logo_url text NOT NULL,
  link_url text NOT NULL,
  disclosure text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cricket_match_links (
  event_id bigint PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  match_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cricket_match_links_match_idx ON cricket_match_links (match_id);
