"""The TOML configuration as frozen models; a bad key fails naming the file and the key."""

from __future__ import annotations

import difflib
import ipaddress
import logging
import os
import pwd
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from assistant.clock import shorten, zone_or_none
from assistant.errors import ConfigError
from assistant.pricing import BudgetSettings, Price
from assistant.servers import MCPSettings
from assistant.wording import section_at, wanted

log = logging.getLogger(__name__)

CONFIG_ENV = "ASSISTANT_CONFIG"
DEFAULT_PATH = Path("config.toml")
STATE_ENV = "STATE_DIRECTORY"  # set by systemd for StateDirectory=


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def _check_timezone(name: str) -> str:
    if zone_or_none(name) is None:
        raise ValueError(
            f"unknown timezone {shorten(name)}; expected an IANA name such as 'Europe/Berlin'"
        )
    return name


class AssistantSettings(_Section):
    """Where state lives and which timezone users start in."""

    timezone: str = "UTC"
    data_dir: str = ""  # "": $STATE_DIRECTORY (systemd's StateDirectory=) when set, else "data"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    local_first: bool = True  # everyday requests understood from sentence templates, no model

    _tz = field_validator("timezone")(_check_timezone)


class TelegramSettings(_Section):
    """How to reach the Bot API and who may talk to the bot."""

    token_env: str = "ASSISTANT_TELEGRAM_TOKEN"
    base_url: str = "https://api.telegram.org/bot"
    allowed_user_ids: Annotated[
        tuple[Annotated[StrictInt, Field(gt=0)], ...], Field(strict=False)
    ] = ()
    private_only: bool = True
    rate_limit: bool = True
    queue_per_chat: int = Field(default=1000, ge=1, le=100_000)
    # Messages a restart left unanswered are handled if younger than this, else told about.
    replay_hours: float = Field(default=6, ge=0, le=24)
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: str = ""
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    webhook_secret_env: str = "ASSISTANT_WEBHOOK_SECRET"


class LLMSettings(_Section):
    """Which model answers, how it is reached and how far a turn may go."""

    provider: Literal["openai", "anthropic"] = "openai"
    base_url: str = "https://api.openai.com/v1"
    api_key_env: str = "OPENAI_API_KEY"
    model: str = "gpt-4o-mini"
    tool_mode: Literal["native", "text", "grammar", "auto"] = "auto"
    # Pictures to the model: "auto" sends them until the model refuses one, then remembers.
    vision: Literal["auto", "on", "off"] = "auto"
    max_steps: int = Field(default=5, ge=1, le=50)
    corrections_per_turn: int = Field(default=1, ge=0, le=10)
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    stream: bool = True
    max_tokens: int = Field(default=1024, ge=16, le=200_000)
    # What the tools' entries may take of each request: the built-ins (about 1,500) always go,
    # outside tools while they fit; the rest are found with find_tools.
    catalogue_tokens: int = Field(default=3000, ge=0, le=1_000_000)
    history_tokens: int = Field(default=6000, ge=500, le=1_000_000)
    context_tokens: int = Field(default=0, ge=0, le=10_000_000)  # 0: not set
    temperature: float = Field(default=0.2, ge=0, le=2)
    max_tasks_per_turn: int = Field(default=5, ge=1, le=100)
    turn_timeout_seconds: float = Field(default=300.0, gt=0, le=3600)
    retries: int = Field(default=2, ge=0, le=10)
    retry_max_wait_seconds: float = Field(default=30.0, ge=0, le=600)
    currency: str = Field(default="USD", min_length=1, max_length=8)  # the prices' currency
    prices: dict[str, Price] = Field(default_factory=dict)  # by model name

    @field_validator("context_tokens")
    @classmethod
    def _window(cls, value: int) -> int:
        if 0 < value < 512:
            raise ValueError("must be 0 (not set) or at least 512 tokens")
        return value


class SandboxSettings(_Section):
    """Limits of one ``execute_code`` run."""

    cpu_seconds: int = Field(default=5, ge=1, le=300)
    memory_mb: int = Field(default=256, ge=32, le=8192)
    file_mb: int = Field(default=1, ge=0, le=1024)
    processes: int = Field(default=16, ge=1, le=256)
    open_files: int = Field(default=32, ge=8, le=1024)
    wall_seconds: float = Field(default=10.0, gt=0, le=600)
    output_bytes: int = Field(default=10_000, ge=100, le=1_000_000)


class ToolSettings(_Section):
    """Which tools the model sees and how their calls are run and summarized."""

    allow: Annotated[tuple[StrictStr, ...], Field(strict=False)] = ()
    deny: Annotated[tuple[StrictStr, ...], Field(strict=False)] = ()
    max_concurrency: int = Field(default=4, ge=1, le=64)
    timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    summary_chars: int = Field(default=900, ge=100, le=100_000)
    summary_chars_per_tool: dict[str, Annotated[int, Field(ge=100, le=100_000)]] = Field(
        default_factory=dict
    )
    approval_minutes: float = Field(default=10.0, gt=0, le=24 * 60)
    execute_code: bool = False
    sandbox: SandboxSettings = SandboxSettings()
    folder: str = ""  # your own tools: *.py files, relative to the config file; "": none


class SecretSettings(_Section):
    """A named secret for the user's own APIs: the variable holding it, the hosts it may go to."""

    env: str
    hosts: Annotated[tuple[StrictStr, ...], Field(strict=False, min_length=1)]


def _check_networks(networks: tuple[str, ...]) -> tuple[str, ...]:
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ValueError(
                f"{network!r} is not a network; expected e.g. '192.168.1.0/24'"
            ) from None
    return networks


class NetSettings(_Section):
    """What tools may reach over the network, and how much they may read."""

    allow_hosts: Annotated[tuple[StrictStr, ...], Field(strict=False)] = ()
    allow_networks: Annotated[tuple[StrictStr, ...], Field(strict=False)] = ()
    max_body_bytes: int = Field(default=2_000_000, ge=1000, le=100_000_000)
    timeout_seconds: float = Field(default=20.0, gt=0, le=300)
    search_backend: Literal["duckduckgo", "none"] = "duckduckgo"
    secrets: dict[str, SecretSettings] = Field(default_factory=dict)

    _networks = field_validator("allow_networks")(_check_networks)


class ConcurrencySettings(_Section):
    """How many runs of each task kind may be in flight at once."""

    reminder: int = Field(default=256, ge=1, le=10_000)
    api_call: int = Field(default=8, ge=1, le=256)
    web_search: int = Field(default=4, ge=1, le=64)
    agent_task: int = Field(default=2, ge=1, le=64)


class SchedulerConfig(_Section):
    """Limits on tasks and how runs are fired, retried and caught up after downtime."""

    min_interval_seconds: int = Field(default=60, ge=1, le=86400)
    max_tasks_per_user: int = Field(default=200, ge=1, le=100_000)
    grace_hours: float = Field(default=24.0, ge=0, le=24 * 30)
    max_attempts: int = Field(default=5, ge=1, le=50)
    retry_base_seconds: float = Field(default=30.0, gt=0, le=3600)
    retry_max_seconds: float = Field(default=3600.0, gt=0, le=86400)
    run_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    shutdown_grace_seconds: float = Field(default=5.0, ge=0, le=300)
    batch_size: int = Field(default=500, ge=1, le=10_000)
    # Python's switch interval while the scheduler runs, process-wide; 0 leaves Python's own.
    switch_interval_ms: float = Field(default=0.0, ge=0, le=5)
    concurrency: ConcurrencySettings = ConcurrencySettings()


class ImageSettings(_Section):
    """An OpenAI-compatible images endpoint; without a base_url, generate_image is not offered."""

    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    model: str = "dall-e-3"
    send_sampling: bool = False
    timeout_seconds: float = Field(default=120.0, gt=0, le=600)


class SpeechSettings(_Section):
    """An OpenAI-compatible speech-to-text endpoint (OpenAI, a local Whisper server); voice
    notes are transcribed only when ``base_url`` is set."""

    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    model: str = "whisper-1"
    max_seconds: int = Field(default=300, gt=0, le=3600)
    max_bytes: int = Field(default=20_000_000, gt=0, le=20_000_000)  # the Bot API's download cap
    timeout_seconds: float = Field(default=120.0, gt=0, le=600)


class HealthSettings(_Section):
    """The health and metrics endpoint for monitoring; off unless ``listen`` is set."""

    listen: str = ""  # "127.0.0.1:9870" serves /healthz and /metrics there

    @field_validator("listen")
    @classmethod
    def _address(cls, value: str) -> str:
        if not value:
            return value
        host, _, port = value.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f'must be "host:port", like "127.0.0.1:9870", got {value!r}')
        return value

    def address(self) -> tuple[str, int]:
        """The host and port to listen on."""
        host, _, port = self.listen.rpartition(":")
        return host.strip("[]"), int(port)


class StorageSettings(_Section):
    """Daily copies of the database in the data folder."""

    backups: int = Field(default=7, ge=0, le=365)  # daily copies kept; 0 turns them off


class Config(_Section):
    """The whole configuration; every section has embedded defaults."""

    assistant: AssistantSettings = AssistantSettings()
    telegram: TelegramSettings = TelegramSettings()
    llm: LLMSettings = LLMSettings()
    tools: ToolSettings = ToolSettings()
    net: NetSettings = NetSettings()
    images: ImageSettings = ImageSettings()
    speech: SpeechSettings = SpeechSettings()
    scheduler: SchedulerConfig = SchedulerConfig()
    storage: StorageSettings = StorageSettings()
    health: HealthSettings = HealthSettings()
    mcp: MCPSettings = MCPSettings()
    budgets: BudgetSettings = BudgetSettings()

    def secret_values(self, environ: Mapping[str, str]) -> list[str]:
        """The values of every secret the config names a variable for (token, keys, secrets)."""
        names = [
            self.telegram.token_env,
            self.telegram.webhook_secret_env,
            self.llm.api_key_env,
            self.images.api_key_env,
            self.speech.api_key_env,
            *(secret.env for secret in self.net.secrets.values()),
            *self.mcp.variables(),
        ]
        return [environ[name] for name in names if environ.get(name)]

    def data_path(self, base: Path | None = None) -> Path:
        """The data directory: as set (relative to ``base``, the config file's folder, else the
        working directory), else systemd's ``$STATE_DIRECTORY``, else ``data``."""
        chosen = self.assistant.data_dir or os.environ.get(STATE_ENV, "").split(":")[0] or "data"
        path = Path(chosen).expanduser()
        return path if path.is_absolute() else (base or Path.cwd()) / path


def config_path(cli_path: str | None) -> tuple[Path, bool]:
    """Choose the config file: the flag, else the environment variable, else ./config.toml."""
    if cli_path:
        return Path(cli_path), True
    if env := os.environ.get(CONFIG_ENV):
        return Path(env), True
    return DEFAULT_PATH, False


def load_config(path: Path, *, named: bool = False) -> Config:
    """Read and validate ``path``. Missing, it means the embedded defaults, unless it was
    named (``--config`` or ``$ASSISTANT_CONFIG``): then it is an error."""
    if not path.exists() and not path.is_symlink():
        if named:
            raise ConfigError(
                f"{path}: no such config file. Create it (config.example.toml shows every key), "
                f"or name none (no --config, no ${CONFIG_ENV}) to run on the embedded defaults."
            )
        log.info("no config file at %s; using the embedded defaults", path)
        return Config()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}; fix it there.") from None
    except RecursionError:
        raise ConfigError(
            f"{path}: tables or lists nested too deeply to read; flatten them there."
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8.") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file; name the file.") from None
    except PermissionError:
        raise ConfigError(
            f"{path}: cannot be read by user {user_name()}; make it readable (chmod 640 and the "
            "user's group, or run as its owner)."
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from None
    return parse_config(raw, source=path.name)


def user_name() -> str:
    """The name of the user this process runs as (for messages about permissions)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def parse_config(raw: dict[str, Any], *, source: str = "config.toml") -> Config:
    """Validate a parsed TOML document, raising one ConfigError that lists every problem."""
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        problems = [f"{source}: {_describe(err)}" for err in exc.errors(include_url=False)]
        raise ConfigError("\n".join(problems)) from None


def _describe(err: Any) -> str:
    key = ""
    for part in err["loc"]:
        key += f"[{part}]" if isinstance(part, int) else f".{part}" if key else str(part)
    key = key or "(top level)"
    return f"{key}: {_expectation(err)}"


def _expectation(err: Any) -> str:
    kind, ctx, got = err["type"], err.get("ctx", {}), err.get("input")
    bounds = {
        "greater_than_equal": ">=",
        "greater_than": ">",
        "less_than_equal": "<=",
        "less_than": "<",
    }
    if kind in bounds:
        limit = next(iter(ctx.values()))
        return f"must be {bounds[kind]} {limit}, got {got!r}"
    if kind == "extra_forbidden":
        return _unknown_key(err["loc"])
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}, got {got!r}"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    if kind.endswith(("_type", "_parsing")) and (words := wanted(Config, err["loc"])):
        return f"{words}; got {got!r}"
    return f"{err['msg'][0].lower()}{err['msg'][1:]}, got {type(got).__name__} {got!r}"


def _unknown_key(loc: tuple[Any, ...]) -> str:
    model = section_at(Config, loc[:-1])  # through tables of tables: [llm.prices."model"]
    if model is None:
        return "unknown key"
    known = list(model.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
    return f"unknown key; {hint}"
