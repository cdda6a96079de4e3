"""The schema, as an append-only list: entry N brings a database from user_version N to N+1.

Never edit or reorder an entry once released; add a new one. No entry drops user data.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: the audit trail of tool calls, append-only.
    """
    CREATE TABLE audit (
        id          INTEGER PRIMARY KEY,
        at          TEXT    NOT NULL,
        request_id  TEXT    NOT NULL,
        call_id     TEXT    NOT NULL,
        user_id     INTEGER NOT NULL,
        tool        TEXT    NOT NULL,
        arguments   TEXT    NOT NULL,
        dropped     TEXT    NOT NULL DEFAULT '[]',
        outcome     TEXT    NOT NULL,
        result      TEXT    NOT NULL DEFAULT '',
        error       TEXT    NOT NULL DEFAULT '',
        duration_ms INTEGER NOT NULL,
        approver    INTEGER
    );
    CREATE INDEX audit_user_at ON audit (user_id, id);
    CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;
    CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;
    """,
)
