"""What the model costs and how much a person may spend: ``[llm.prices]`` and ``[budgets]``.

Prices are per million tokens (input, cached input, output) and per audio minute, in the
config's currency; a model with no price costs 0 (a local one, say). Budgets are a day's and a
month's limit a person, in money or tokens: a default, overrides by user id, and one shared by
everyone in group chats. 0 is no limit.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Amount = Annotated[float, Field(ge=0, le=1e12)]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Price(_Section):
    """One model's price: a million input, cached input and output tokens, an audio minute."""

    input: Amount = 0.0
    cached_input: Amount = 0.0
    output: Amount = 0.0
    audio_minute: Amount = 0.0

    def of(self, input_tokens: int, cached_tokens: int, output_tokens: int, audio: float) -> float:
        """The cost of one call (cached tokens are part of the input the server counted)."""
        fresh = max(input_tokens - cached_tokens, 0)
        tokens = fresh * self.input + cached_tokens * self.cached_input
        return (tokens + output_tokens * self.output) / 1e6 + audio / 60 * self.audio_minute


class Limits(_Section):
    """A day's and a month's limit (0: none)."""

    daily: Amount = 0.0
    monthly: Amount = 0.0


class BudgetSettings(_Section):
    """How much each person may spend on the model, checked before every call."""

    unit: Literal["money", "tokens"] = "money"
    daily: Amount = 0.0  # every person's, unless ``people`` names them
    monthly: Amount = 0.0
    people: dict[str, Limits] = Field(default_factory=dict)  # by user id: "123456789"
    groups: Limits = Limits()  # shared by everyone in group chats
    keep_days: int = Field(default=400, ge=31, le=36500)  # usage rows kept

    @field_validator("people")
    @classmethod
    def _ids(cls, people: dict[str, Limits]) -> dict[str, Limits]:
        for key in people:
            if not key.isdecimal() or int(key) <= 0:
                raise ValueError(f'people: {key!r} is not a user id; write it as "123456789"')
        return people

    def limits(self, user_id: int) -> Limits:
        """The person's own limits, else everyone's."""
        own = self.people.get(str(user_id))
        return own if own is not None else Limits(daily=self.daily, monthly=self.monthly)
