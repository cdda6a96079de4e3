"""Language packs: every message translated, plural forms and dates by Babel, a third language
as a new folder, and a whole Russian conversation with no English word in it."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from io import BytesIO
from pathlib import Path

from babel.messages.pofile import read_po
from test_local_first import NOW, USER, Channel, setup_for

from assistant import locales
from assistant.agent import Person
from assistant.agent.front.answers import pick, yes_or_no
from assistant.agent.guards.claims import unfounded
from assistant.app.runtime import compose
from assistant.clock import FakeClock
from assistant.intents import zone_of
from assistant.locales import Packs, ntr, tr, words
from assistant.locales.dates import moment
from assistant.locales.extraction import template
from assistant.scheduler import Notice
from assistant.tools.finder import words as finder_words

PACKAGE = Path(locales.__file__).resolve().parent.parent
_PLACEHOLDER = re.compile(r"\{(\w*)\}")


def test_every_message_has_every_translation_with_its_placeholders():
    wanted = template(PACKAGE)
    assert len(wanted) > 100  # the extractor found the code's messages
    for pack in locales.current().all:
        if pack.code == "en":
            continue
        catalog = read_po(BytesIO((Path(str(pack.folder)) / "messages.po").read_bytes()))
        problems = []
        for message in wanted:
            if not message.id:
                continue
            found = catalog.get(message.id)
            strings = found and (
                found.string if isinstance(found.string, tuple) else (found.string,)
            )
            if not found or found.fuzzy or not strings or not all(strings):
                problems.append(f"untranslated: {message.id!r}")
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            expected = set(_PLACEHOLDER.findall(" ".join(ids))) - {"n"}
            for said in strings:
                if set(_PLACEHOLDER.findall(said)) - {"n"} != expected:
                    problems.append(f"placeholders differ: {message.id!r} → {said!r}")
        assert problems == [], f"{pack.code}: " + "\n".join(problems)


def test_counts_take_the_plural_form_of_the_language():
    said = [ntr("ru", "{n} note", "{n} notes", n) for n in (1, 2, 5, 11, 21, 22)]
    assert said == ["1 заметка", "2 заметки", "5 заметок", "11 заметок", "21 заметка", "22 заметки"]
    assert [ntr("en", "{n} note", "{n} notes", n) for n in (1, 8)] == ["1 note", "8 notes"]


def test_dates_are_said_in_the_persons_locale_and_zone():
    at = datetime(2026, 11, 28, 6, 0, tzinfo=UTC)
    assert moment(at, "Europe/Moscow", "ru") == "сб, 28 нояб., 09:00"
    assert moment(at, "Europe/Moscow", "en") == "Sat, Nov 28, 09:00"


def test_a_language_with_no_catalog_falls_back_to_english():
    assert tr("xx", "Saved note {id}.", id=3) == "Saved note 3."


TOY_SENTENCES = """
language = "de"
fillers = ["mich", "an"]
[intents.remind]
sentences = ["erinnere mich {when} an {what}"]
"""
TOY_WORDS = """
alphabet = "äöüß"
[language_names]
"deutsch" = "de"
[schedule]
"minuten" = "minutes"
[answers]
yes = ["ja"]
no = ["nein"]
[answers.places]
"zweit" = 2
[guards.actions]
note = ["notiz"]
[guards]
claims = ["erledigt"]
[tool_search.synonyms]
"wetter" = "weather forecast"
[place_cases]
"s" = [""]
"""
TOY_MESSAGES = r"""
msgid ""
msgstr ""
"Language: de\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"
"Content-Type: text/plain; charset=utf-8\n"

msgid "✅ Reminder {line}."
msgstr "✅ Erinnerung {line}."

msgid "once on {moment} ({zone})"
msgstr "einmal am {moment} ({zone})"

msgid "I will answer you in English."
msgstr "Ich antworte Ihnen auf Deutsch."
"""


def toy_packs(tmp_path: Path) -> Packs:
    """The shipped packs and a toy German one beside them: a new folder, no new code."""
    root = tmp_path / "locales"
    for pack in locales.current().all:
        shutil.copytree(Path(str(pack.folder)), root / pack.code)
    toy = root / "de"
    toy.mkdir()
    (toy / "sentences.toml").write_text(TOY_SENTENCES, "utf-8")
    (toy / "words.toml").write_text(TOY_WORDS, "utf-8")
    (toy / "messages.po").write_text(TOY_MESSAGES, "utf-8")
    return Packs(root)


async def test_a_third_language_is_a_new_folder(tmp_path):
    clock, channel = FakeClock(NOW), Channel()
    with locales.use(toy_packs(tmp_path)):
        async with compose(setup_for(tmp_path), clock, channel, channel) as runtime:
            person = Person(USER, USER, "Europe/Berlin")
            switched = await runtime.answer(person, "/lang deutsch")
            person = Person(USER, USER, "Europe/Berlin", language="de")
            made = await runtime.answer(person, "erinnere mich in 10 minuten an Tee")
            tasks = await runtime.tasks.list_tasks(USER)
    assert switched.text == "Ich antworte Ihnen auf Deutsch."
    assert [t.description for t in tasks] == ["Tee"]
    assert made.text.startswith("✅ Erinnerung ") and "einmal am Fr., 27. Nov., 09:10" in made.text
    assert locales.known_language("deutsch") == ""  # the toy is gone with its folder


def test_a_third_language_brings_its_answers_guards_and_search_words(tmp_path):
    with locales.use(toy_packs(tmp_path)):
        assert (yes_or_no("Ja"), yes_or_no("nein"), pick("die zweite", ["a", "b"])) == (
            True, False, "b"
        )  # fmt: skip
        claimed = unfounded("Notiz: Milch kaufen", "Erledigt, die Notiz ist da.", [])
        assert claimed is not None and claimed.name == "note"
        assert "weather" in finder_words("Wetter morgen")
        assert zone_of("Berlins") == "Europe/Berlin"  # a case ending of the toy pack
    assert yes_or_no("ja") is None and unfounded("Notiz: x", "Erledigt.", []) is None
    assert zone_of("Berlins") is None


class Recording(Channel):
    """A channel that keeps the notices it delivers."""

    def __init__(self) -> None:
        super().__init__()
        self.notices: list[Notice] = []

    async def deliver(self, notice: Notice) -> int:
        self.notices.append(notice)
        return len(self.notices)


RUSSIAN_CONVERSATION = [
    "/start", "/help", "/tasks", "/notes", "напомни через 10 минут размяться",
    "каждый будний день в 8:00 зарядка", "запиши, что код от шкафчика 4312",
    "/note купить хлеб", "/search хлеб", "какие у меня напоминания", "покажи заметки",
    "который час", "который час в Токио", "/tz Москва", "/lang", "/every завтра в 9 пробежка",
    "/cancel zzzzzz", "/edit", "/export", "/stop", "/audit",
    "/clear", "/nosuch", "/tasks", "/remind 2020-01-01 10:00 старое", "/remind завтра в 3 х",
    "/remind завтра", "/remind размяться", "напомни за час до встречи в 15:00 взять документы",
    "напомни за час до поезда", "в 18:00", "каждое 1 число в 10 платить за квартиру",
    "/usage", "сколько я потратил",
]  # fmt: skip
# A Latin word that may stand in Russian text: a command, a zone, an id, a placeholder.
_ALLOWED = re.compile(
    r"/\w+(?:@\w+)?|[A-Z][A-Za-z_]+/[A-Za-z_/]+|<[^>]*>|\b(?:en|ru|id|API|k3x9|30m|USD)\b"
)


def english_words(text: str, ids: set[str]) -> list[str]:
    """The Latin words of ``text`` that are not names, ids or commands."""
    rest = _ALLOWED.sub(" ", text)
    for name in ids:
        rest = rest.replace(name, " ")
    return [w for w in re.findall(r"[A-Za-z]{2,}", rest) if w not in ids]


async def test_a_whole_russian_conversation_has_no_english_word(tmp_path):
    clock, channel = FakeClock(NOW), Recording()
    async with compose(setup_for(tmp_path), clock, channel, channel) as runtime:
        await runtime.people.set_language(USER, "ru")
        person = Person(USER, USER, "Europe/Berlin", language="ru")
        said = [(line, (await runtime.answer(person, line)).text) for line in RUSSIAN_CONVERSATION]
        confirm = await runtime.answer(person, "отмени напоминание размяться")
        said.append(("отмени напоминание размяться", confirm.text))
        said.append(("approval", channel.shown[-1].text))
        decided = await runtime.decide(channel.shown[-1].token, USER, False)
        said.append(("no", decided))
        await runtime.answer(person, "напомни через 1 минуту попить воды")
        clock.advance(timedelta(minutes=2))
        await runtime.scheduler.fire_due()
        ids = {t.id for t in await runtime.tasks.list_tasks(USER)} | {"zzzzzz"}
    fired = [n.text for n in channel.notices if n.kind == "reminder"]
    assert any(text.startswith("⏰ попить воды") for text in fired)
    said += [("fired", text) for text in fired]
    ids |= {text.rsplit(" ", 1)[1] for text in fired}
    # /audit lists the tools by their names and outcomes, which are names, not English
    english = {line: english_words(text, ids) for line, text in said if line != "/audit"}
    found = {line: words for line, words in english.items() if words}
    assert found == {}, "\n".join(f"{line}: {words}" for line, words in found.items())


def test_every_words_file_keeps_its_lists_at_the_top_and_its_tables_whole():
    """A list written after a table's header would silently join that table (TOML): each
    pack's lists are read at the top, and each table of words maps words to words."""
    for pack in locales.current().all:
        found = pack.toml("words.toml")
        for key in ("schedule", "schedule_repeating", "language_names"):
            table = found.get(key, {})
            assert all(isinstance(v, str) for v in table.values()), f"{pack.code}: [{key}]"
        for key in ("tails", "schedule_joining", "verb_endings", "repeating_verbs"):
            assert isinstance(found.get(key, []), list), f"{pack.code}: {key}"
    assert "через" in words.listed("schedule_joining")
    assert "pls" in words.listed("tails") and "пжлст" in words.listed("tails")
    assert words.of("ru", "clock_at") == "в"
