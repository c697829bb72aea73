"""The fonts the PDF report prints in: DejaVu Sans and DejaVu Sans Mono (Debian's fonts-dejavu-core, and
fonts-dejavu-mono where the monospace face is a package of its own), embedded in every report.

PDF's fourteen base fonts have no glyph for most of what a report prints (`⊢`, `∀`, `→`, `≤` print as ■), and a
reader's viewer substitutes fonts it lacks. So the report embeds a Unicode TrueType font, and when it cannot be
found the report is not written: a clear error says which package to install, never a fallback that prints
black boxes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from reasonforge.errors import ToolUnavailableError

__all__ = ["FONT_DIRS", "ReportFonts", "report_fonts"]

FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),  # Debian, Ubuntu
    Path("/usr/share/fonts/TTF"),  # Arch
    Path("/usr/share/fonts/dejavu-sans-fonts"),  # Fedora
    Path("/usr/share/fonts/dejavu-sans-mono-fonts"),
    Path("/usr/local/share/fonts"),
)
"""Where the DejaVu TrueType files are looked for, in order."""

# registered name -> file name
_FILES = {
    "DejaVuSans": "DejaVuSans.ttf",
    "DejaVuSans-Bold": "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique": "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansMono": "DejaVuSansMono.ttf",
    "DejaVuSansMono-Bold": "DejaVuSansMono-Bold.ttf",
}


@dataclass(frozen=True)
class ReportFonts:
    """The registered font names the report's styles use."""

    sans: str = "DejaVuSans"
    bold: str = "DejaVuSans-Bold"
    mono: str = "DejaVuSansMono"
    mono_bold: str = "DejaVuSansMono-Bold"


def report_fonts(font_dirs: tuple[Path, ...] = FONT_DIRS) -> ReportFonts:
    """Register the DejaVu faces from the first of `font_dirs` that holds each (once per set of folders); a
    ToolUnavailableError naming the missing files and the package to install when any is missing."""
    return _register(tuple(Path(d) for d in font_dirs))


@cache
def _register(font_dirs: tuple[Path, ...]) -> ReportFonts:
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    found: dict[str, Path] = {}
    for name, file in _FILES.items():
        path = next((d / file for d in font_dirs if (d / file).is_file()), None)
        if path is not None:
            found[name] = path
    missing = [file for name, file in _FILES.items() if name not in found]
    if missing:
        where = ", ".join(str(d) for d in font_dirs) or "(no folder given)"
        raise ToolUnavailableError(
            f"the PDF report embeds the DejaVu fonts so that every character prints (⊢, ∀, →, ≤), and "
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not in {where}: install Debian's "
            "fonts-dejavu-core (and fonts-dejavu-mono on Debian 13 and later), which `make install` does")
    for name, path in found.items():
        pdfmetrics.registerFont(TTFont(name, str(path)))
    fonts = ReportFonts()
    for bold, italic, face in ((0, 0, fonts.sans), (1, 0, fonts.bold), (0, 1, "DejaVuSans-Oblique"),
                               (1, 1, "DejaVuSans-BoldOblique")):
        addMapping(fonts.sans, bold, italic, face)
    for bold, italic, face in ((0, 0, fonts.mono), (1, 0, fonts.mono_bold), (0, 1, fonts.mono),
                               (1, 1, fonts.mono_bold)):
        addMapping(fonts.mono, bold, italic, face)
    return fonts
