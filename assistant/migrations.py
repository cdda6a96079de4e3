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
    # 2: the scheduler's tasks and one row per firing of each.
    """
    CREATE TABLE scheduled_tasks (
        id             TEXT    PRIMARY KEY,
        user_id        INTEGER NOT NULL,
        chat_id        INTEGER NOT NULL,
        task_type      TEXT    NOT NULL
            CHECK (task_type IN ('reminder', 'api_call', 'web_search', 'agent_task')),
        description    TEXT    NOT NULL,
        schedule_type  TEXT    NOT NULL CHECK (schedule_type IN ('once', 'interval', 'cron')),
        schedule_data  TEXT    NOT NULL,
        schedule_text  TEXT    NOT NULL,
        timezone       TEXT    NOT NULL,
        execution_data TEXT    NOT NULL DEFAULT '{}',
        misfire        TEXT    NOT NULL DEFAULT 'catch_up' CHECK (misfire IN ('catch_up', 'skip')),
        status         TEXT    NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'paused', 'done', 'cancelled')),
        enabled        INTEGER GENERATED ALWAYS AS (status = 'active') VIRTUAL,
        created_at     TEXT    NOT NULL,
        last_run       TEXT,
        next_run       TEXT    NOT NULL,
        due_at         TEXT    NOT NULL,
        lease_owner    TEXT,
        lease_until    TEXT,
        attempts       INTEGER NOT NULL DEFAULT 0,
        last_error     TEXT    NOT NULL DEFAULT ''
    );
    CREATE INDEX idx_tasks_next_run ON scheduled_tasks (next_run) WHERE enabled = 1;
    CREATE INDEX idx_tasks_owner ON scheduled_tasks (user_id, status);
    CREATE TABLE task_runs (
        id            INTEGER PRIMARY KEY,
        task_id       TEXT    NOT NULL REFERENCES scheduled_tasks (id),
        scheduled_for TEXT    NOT NULL,
        status        TEXT    NOT NULL
            CHECK (status IN ('running', 'ok', 'error', 'missed', 'abandoned', 'skipped')),
        attempt       INTEGER NOT NULL DEFAULT 1,
        started_at    TEXT,
        finished_at   TEXT,
        message_id    INTEGER,
        note          TEXT    NOT NULL DEFAULT '',
        error         TEXT    NOT NULL DEFAULT '',
        UNIQUE (task_id, scheduled_for)
    );
    CREATE INDEX idx_runs_running ON task_runs (task_id) WHERE status = 'running';
    """,
    # 3: conversations per chat (a /clear starts a new session) and the tool mode per model.
    """
    CREATE TABLE chats (
        chat_id  INTEGER PRIMARY KEY,
        user_id  INTEGER NOT NULL,
        session  INTEGER NOT NULL DEFAULT 1
    );
    CREATE TABLE messages (
        id          INTEGER PRIMARY KEY,
        chat_id     INTEGER NOT NULL,
        user_id     INTEGER NOT NULL,
        session     INTEGER NOT NULL,
        turn_id     TEXT    NOT NULL,
        role        TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
        content     TEXT    NOT NULL,
        calls       TEXT    NOT NULL DEFAULT '[]',
        call_id     TEXT,
        tool        TEXT,
        is_error    INTEGER NOT NULL DEFAULT 0,
        audit_id    INTEGER,
        tokens      INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT    NOT NULL
    );
    CREATE INDEX idx_messages_chat ON messages (chat_id, session, id);
    CREATE TABLE llm_modes (
        model   TEXT PRIMARY KEY,
        mode    TEXT NOT NULL CHECK (mode IN ('native', 'text')),
        reason  TEXT NOT NULL DEFAULT '',
        since   TEXT NOT NULL
    );
    """,
    # 4: notes, and full-text indexes over notes and conversations (CJK indexed per character;
    # the owner column holds user and chat tokens, so a search only ranks its owner's rows).
    """
    CREATE TABLE notes (
        id          INTEGER PRIMARY KEY,
        user_id     INTEGER NOT NULL,
        content     TEXT    NOT NULL,
        tags        TEXT    NOT NULL DEFAULT '[]',
        created_at  TEXT    NOT NULL
    );
    CREATE INDEX idx_notes_user ON notes (user_id, id);
    CREATE VIRTUAL TABLE notes_fts USING fts5 (
        body, tags, owner, tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE messages_fts USING fts5 (
        body, owner, tokenize = 'unicode61 remove_diacritics 2'
    );
    """,
    # 5: the people who use the assistant: their timezone and what to call them.
    """
    CREATE TABLE people (
        user_id     INTEGER PRIMARY KEY,
        timezone    TEXT,
        name        TEXT    NOT NULL DEFAULT '',
        blocked     INTEGER NOT NULL DEFAULT 0,
        updated_at  TEXT    NOT NULL
    );
    """,
    # 6: approvals as stored pending actions; tasks paused because their owner blocked the bot;
    # the task behind an audit row of a scheduled run.
    """
    CREATE TABLE approvals (
        token       TEXT    PRIMARY KEY,
        user_id     INTEGER NOT NULL,
        chat_id     INTEGER NOT NULL,
        timezone    TEXT    NOT NULL,
        request_id  TEXT    NOT NULL,
        call_id     TEXT    NOT NULL,
        tool        TEXT    NOT NULL,
        arguments   TEXT    NOT NULL,
        digest      TEXT    NOT NULL,
        reason      TEXT    NOT NULL,
        preview     TEXT    NOT NULL,
        created_at  TEXT    NOT NULL,
        expires_at  TEXT    NOT NULL,
        status      TEXT    NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'refused')),
        message_id  INTEGER,
        decided_at  TEXT,
        approver    INTEGER
    );
    CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';
    ALTER TABLE scheduled_tasks ADD COLUMN paused_by TEXT;
    ALTER TABLE audit ADD COLUMN task_id TEXT;
    """,
    # 7: a model's remembered tool mode may be grammar (a schema-constrained JSON reply).
    """
    CREATE TABLE llm_modes_new (
        model   TEXT PRIMARY KEY,
        mode    TEXT NOT NULL CHECK (mode IN ('native', 'text', 'grammar')),
        reason  TEXT NOT NULL DEFAULT '',
        since   TEXT NOT NULL
    );
    INSERT INTO llm_modes_new (model, mode, reason, since)
        SELECT model, mode, reason, since FROM llm_modes;
    DROP TABLE llm_modes;
    ALTER TABLE llm_modes_new RENAME TO llm_modes;
    """,
    # 8: the due end of each kind, unclaimed: a claim reads only rows it can take, so claiming
    # N due tasks in batches is linear (leased rows leave this index instead of being skipped).
    # It replaces the index over next_run alone, which only the scheduler read. Leased tasks
    # (running, or reserved ahead of their time) have an index of their own for recovery.
    """
    CREATE INDEX idx_tasks_due ON scheduled_tasks (task_type, next_run)
        WHERE enabled = 1 AND lease_owner IS NULL;
    DROP INDEX idx_tasks_next_run;
    CREATE INDEX idx_tasks_leased ON scheduled_tasks (lease_owner) WHERE lease_owner IS NOT NULL;
    """,
    # 9: models found not to see pictures (llm.vision = "auto" stops sending them one).
    """
    CREATE TABLE llm_blind (
        model   TEXT PRIMARY KEY,
        reason  TEXT NOT NULL DEFAULT '',
        since   TEXT NOT NULL
    );
    """,
    # 10: full-text indexes hold each word behind its owner's mark (see fulltext.py), so a
    # search reads and ranks its owner's rows only; the owner column goes (messages keep the
    # chat's token for a search in one chat). Rebuilt from the rows they index.
    """
    DROP TABLE notes_fts;
    CREATE VIRTUAL TABLE notes_fts USING fts5 (
        body, tags, tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO notes_fts (rowid, body, tags)
        SELECT id, fts_indexed(content, user_id),
            fts_indexed((SELECT group_concat(value, ' ') FROM json_each(tags)), user_id)
        FROM notes;
    DROP TABLE messages_fts;
    CREATE VIRTUAL TABLE messages_fts USING fts5 (
        body, chat, tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO messages_fts (rowid, body, chat)
        SELECT id, fts_indexed(content, user_id), 'c' || replace(chat_id, '-', 'n')
        FROM messages WHERE role IN ('user', 'assistant') AND content != '';
    """,
    # 11: how a model's tool mode was learned: from the start-up probe (tried again later when
    # it is not native, and never pinned by a made-up request alone), from real turns, or from
    # `assistant doctor`; and the mode to fall back to when real turns show native fails.
    """
    ALTER TABLE llm_modes ADD COLUMN learned TEXT NOT NULL DEFAULT 'turns';
    ALTER TABLE llm_modes ADD COLUMN fallback TEXT NOT NULL DEFAULT 'text';
    UPDATE llm_modes SET learned = 'probe'
        WHERE reason NOT IN ('the endpoint refuses them', 'it wrote them as text');
    """,
    # 12: the local user's data (the terminal's, before an owner was configured) handed over to
    # the first owner, once: a record of each handover.
    """
    CREATE TABLE handovers (
        id        INTEGER PRIMARY KEY,
        local_id  INTEGER NOT NULL,
        owner_id  INTEGER NOT NULL,
        moved     TEXT NOT NULL,
        at        TEXT NOT NULL
    );
    """,
    # 13: the question a chat was asked and waits to answer (which time, what to remind of,
    # which task): the next message is read as its answer first; it lasts until it expires.
    """
    CREATE TABLE questions (
        chat_id     INTEGER PRIMARY KEY,
        user_id     INTEGER NOT NULL,
        key         TEXT NOT NULL,
        kind        TEXT NOT NULL,
        data        TEXT NOT NULL,
        expires_at  TEXT NOT NULL
    );
    """,
    # 14: the language a person is answered in: from Telegram's language_code, /lang, or
    # "speak English"; empty until one of them says.
    """
    ALTER TABLE people ADD COLUMN language TEXT NOT NULL DEFAULT '';
    """,
    # 15: every model call counted: for whom (the person, a group chat, a task), which model,
    # the tokens the server reported (or our estimate, marked), and its cost at the price of
    # the day; ``day`` is the person's local date (its month: the first seven characters). A row
    # is a reservation (``settled`` 0) from the budget check until the call ends; the index by
    # person and day covers what a budget sums, so a check reads the index alone. The alerts
    # the owner was sent, so each is sent once.
    """
    CREATE TABLE usage (
        id            INTEGER PRIMARY KEY,
        at            TEXT NOT NULL,
        day           TEXT NOT NULL,
        user_id       INTEGER NOT NULL,
        source        TEXT NOT NULL,
        task_id       TEXT NOT NULL DEFAULT '',
        run           TEXT NOT NULL DEFAULT '',
        grouped       INTEGER NOT NULL DEFAULT 0,
        model         TEXT NOT NULL,
        input_tokens  INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        audio_seconds REAL NOT NULL DEFAULT 0,
        cost          REAL NOT NULL DEFAULT 0,
        estimated     INTEGER NOT NULL DEFAULT 0,
        settled       INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX usage_by_person_day ON usage (user_id, day, cost, input_tokens, output_tokens);
    CREATE INDEX usage_by_task ON usage (task_id, day) WHERE task_id != '';
    CREATE INDEX usage_by_group_day ON usage (grouped, day) WHERE grouped = 1;
    CREATE TABLE budget_alerts (
        user_id  INTEGER NOT NULL,
        period   TEXT NOT NULL,
        level    INTEGER NOT NULL,
        PRIMARY KEY (user_id, period, level)
    );
    """,
    # 16: a one-shot given as a span from now ("in 3 hours") keeps its instant through a zone
    # change, where a clock time keeps its wall clock. Older rows kept no sign of which it was;
    # a clock time always falls on a whole minute, a span on the second it was asked at, so a
    # one-shot off the minute is marked a span (one asked on a whole minute stays a clock time).
    """
    UPDATE scheduled_tasks
    SET schedule_data = json_set(schedule_data, '$.from_now', json('true'))
    WHERE schedule_type = 'once'
        AND strftime('%S', json_extract(schedule_data, '$.at')) != '00';
    """,
    # 17: an approval is answered by a typed yes or no only where it was shown (the chat, or
    # the terminal that asked) and only while it is the last thing asked there; a question
    # waits for one person, not for the whole chat (a family group asks several at once).
    """
    ALTER TABLE approvals ADD COLUMN channel TEXT NOT NULL DEFAULT '';
    ALTER TABLE approvals ADD COLUMN typed INTEGER NOT NULL DEFAULT 1;
    CREATE TABLE questions_by_person (
        chat_id     INTEGER NOT NULL,
        user_id     INTEGER NOT NULL,
        key         TEXT NOT NULL,
        kind        TEXT NOT NULL,
        data        TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        PRIMARY KEY (chat_id, user_id)
    );
    INSERT INTO questions_by_person SELECT chat_id, user_id, key, kind, data, expires_at
        FROM questions;
    DROP TABLE questions;
    ALTER TABLE questions_by_person RENAME TO questions;
    """,
    # 18: the messages taken from Telegram, stored before they are acknowledged and kept until
    # answered, so a restart loses none and answers none twice (``memory/inbox.py``); budget
    # alerts the owner could not be sent, kept until they next write (``usage/kept.py``).
    """
    CREATE TABLE inbox (
        update_id    INTEGER PRIMARY KEY,
        chat_id      INTEGER NOT NULL,
        user_id      INTEGER NOT NULL,
        payload      TEXT NOT NULL,
        received_at  TEXT NOT NULL,
        state        TEXT NOT NULL DEFAULT 'queued'
    );
    CREATE INDEX inbox_unanswered ON inbox (state) WHERE state != 'answered';
    CREATE TABLE alerts_kept (
        id            INTEGER PRIMARY KEY,
        user_id       INTEGER NOT NULL,
        span          TEXT NOT NULL,
        level         INTEGER NOT NULL,
        limit_amount  REAL NOT NULL,
        unit          TEXT NOT NULL,
        at            TEXT NOT NULL
    );
    """,
)
