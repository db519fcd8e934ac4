-- The recent changes of every option's book, as the stream sent them, so that a client that reconnects (to any
-- instance) receives exactly the messages it missed: written in the transaction of each change, beside its NOTIFY,
-- and kept for the last STREAM_WINDOW_MESSAGES changes of each option and STREAM_WINDOW_SECONDS at most.
-- `message` is the book notice as JSON (the levels it touched as they now stand, and its fills); `traded` says
-- whether it has fills (a `trades:` message). No foreign key: a check per row on the order path buys nothing here.
CREATE TABLE stream_book_window (
  option_id bigint NOT NULL,
  seq bigint NOT NULL,
  traded boolean NOT NULL,
  message text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (option_id, seq)
);
CREATE INDEX stream_book_window_created_idx ON stream_book_window (created_at);
