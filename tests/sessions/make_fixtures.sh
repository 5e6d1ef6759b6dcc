#!/usr/bin/env bash
# Rebuilds the session fixtures of earlier schema versions from their SQL (needs the sqlite3 shell).
# The .sqlite files are committed; run this only when a fixture's data changes, never its schema.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../fixtures/sessions"
mkdir -p "$out"
for sql in "$here"/fixture_v*.sql; do
  name="$(basename "$sql" .sql)"
  target="$out/session_${name#fixture_}.sqlite"
  rm -f "$target"
  sqlite3 "$target" < "$sql"
  echo "wrote $target (user_version $(sqlite3 "$target" 'PRAGMA user_version'))"
done
