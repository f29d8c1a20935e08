"""Text from inputs made inert for every surface it is shown on (the terminal, `benchbill sql` tables, the HTML
report): control characters and bidirectional formatting characters are written as visible escapes, so that a
run.yaml label or a price provider cannot set a terminal's title, clear its screen, or display `...exe.jpg` for a
name that ends in `.exe`."""

from __future__ import annotations

# C0 controls (ESC among them), DEL, C1 controls; the bidirectional marks, embeddings, overrides and isolates;
# the line and paragraph separators (a line break to some terminals).
CONTROL_CODES = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
BIDI_CODES = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
SEPARATOR_CODES = [0x2028, 0x2029]


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_ESCAPES = {code: _escape(code) for code in (*CONTROL_CODES, *BIDI_CODES, *SEPARATOR_CODES)}
_ESCAPES_BUT_LINES = {code: text for code, text in _ESCAPES.items() if chr(code) not in "\n\t"}


def inert(text: str, lines: bool = False) -> str:
    """`text` with every control and bidirectional formatting character written as its escape (`\\x1b`,
    `\\u202e`); with `lines`, line feeds and tabs are kept (text that is folded or printed as lines)."""
    return text.translate(_ESCAPES_BUT_LINES if lines else _ESCAPES)
