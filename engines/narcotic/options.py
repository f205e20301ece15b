"""The rule options of Narcotic's commands: ``--rules PRESET`` and the three choices that override its parts
(``cardlab narcotic play`` and ``simulate``, and a canonical campaign's ``cardlab campaign narcotic R``)."""

from __future__ import annotations

from .rules import GATHERS, MATCHINGS, PILE_FOURS, PRESETS, Rules


def add_rule_options(p) -> None:
    """--rules PRESET and the three choices that override its parts."""
    p.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="seed",
        help="preset (default: %(default)s); the options below override its parts",
    )
    p.add_argument(
        "--matching", choices=MATCHINGS, help="which cards may be moved: deal (the seed) or cascade (pile tops only)"
    )
    p.add_argument("--gather", choices=GATHERS, help="which pile's card is dealt first after gathering")
    p.add_argument(
        "--pile-four", dest="pile_four", choices=PILE_FOURS, help="keep (the seed) or discard four equal pile tops"
    )


def rules_from_args(args) -> Rules:
    """The rules the options name: the preset, with the parts given overriding its own."""
    base = Rules.preset(args.rules)
    return Rules(args.matching or base.matching, args.gather or base.gather, args.pile_four or base.pile_four)
