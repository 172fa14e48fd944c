"""One line of plain text from anything a student controls, for the instructor's terminal, flags and CSV."""

import unicodedata

LIMIT = 500  # characters of one name or reason shown; the rest is cut with a note
# What a spreadsheet reads as the start of a formula in a CSV cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def printable(value: object, limit: int = LIMIT) -> str:
    """`value` as one line of visible text: control, format and separator characters escaped.

    Terminal escapes, newlines, carriage returns, bidirectional overrides (U+202E), zero-width
    characters and the like become `\\x1b`, `\\n`, `\\u202e`, ...; so a name cannot colour or
    clear the terminal, reorder what is shown, or start a line of its own. Text that is already
    printable comes back unchanged (so applying this twice changes nothing).
    """
    text = value if isinstance(value, str) else str(value)
    shown = []
    for character in text:
        if character == " " or unicodedata.category(character)[0] not in "CZ":
            shown.append(character)
        elif ord(character) < 0x100:
            shown.append(f"\\x{ord(character):02x}")
        elif ord(character) < 0x10000:
            shown.append(f"\\u{ord(character):04x}")
        else:
            shown.append(f"\\U{ord(character):08x}")
    line = "".join(shown)
    if len(line) > limit:
        line = line[:limit] + f"... ({len(line) - limit} more characters)"
    return line


def spreadsheet_cell(value: object) -> str:
    """`value` as one printable line a spreadsheet shows as text: a formula start gets a leading '."""
    text = printable(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
