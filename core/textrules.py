"""Patterns of the text clients may send, as JSON Schema states them and the server checks them with
``re.fullmatch`` (core.models has the rest of the input contract; names of lists and labels, core.listnames,
use them too)."""

from __future__ import annotations

__all__ = ["INVISIBLE", "PLAIN_TEXT", "SPACE", "UNICODE_TEXT", "VISIBLE_TEXT"]

# Text every backend stores: PostgreSQL refuses NUL in text. A lone surrogate (a legal JSON escape
# such as "\ud800", but not Unicode) fails on the way to any database or UTF-8 encoder; JSON Schema
# patterns cannot name it (Rust's and ECMA's engines read strings as Unicode), so only the server
# checks it, and the document says so in words.
PLAIN_TEXT = r"^[^\x00]*$"
UNICODE_TEXT = r"^[^\ud800-\udfff]*$"
# Whitespace as `str.strip` and `str.isspace` see it, spelled out: `\s` differs between engines.
SPACE = r"\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# Characters that show nothing although `str.isspace` says they are not space: zero-width space,
# joiners, word joiner, BOM, soft hyphen, Mongolian vowel separator, invisible operators. A title
# made only of these (and space) reads as blank to a person.
INVISIBLE = r"\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff"
VISIBLE_TEXT = rf"^[^\x00]*[^\x00{SPACE}{INVISIBLE}][^\x00]*$"
