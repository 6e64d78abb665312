"""Arena reference server: agent sessions, referee, matchmaking, tournaments, ratings, store."""

PROTOCOL_VERSION = "1.0"
