"""The rules specification is in the repository (docs/RULES.md) and every reference to it resolves there: links,
section numbers (``RULES.md §4.8.3``, ``§2.7``) and ambiguity ids (``AMB-12``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "RULES.md"
_SKIP_DIRS = {".git", ".venv", "docs", "runs", "build", "dist", "__pycache__"}


def _project_files() -> list[Path]:
    """Source, config, notebook and documentation files of the project (the history in CHANGELOG.md aside)."""
    out = []
    for pattern in ("*.py", "*.md", "*.yaml", "*.ipynb"):
        for path in ROOT.rglob(pattern):
            rel = path.relative_to(ROOT)
            if not _SKIP_DIRS.intersection(rel.parts) and rel.name != "CHANGELOG.md":
                out.append(path)
    return sorted(out)


FILES = _project_files()
TEXT = {path: path.read_text(encoding="utf-8", errors="replace") for path in FILES}


def test_the_spec_is_in_the_repository():
    assert SPEC.is_file()
    assert "Sichuan" in SPEC.read_text(encoding="utf-8").splitlines()[0]


def test_every_link_to_the_spec_resolves_to_docs_rules():
    links = 0
    for path, text in TEXT.items():
        for target in re.findall(r"\]\(([^)\s]*RULES\.md)(?:#[^)]*)?\)", text):
            links += 1
            assert (path.parent / target).resolve() == SPEC, f"{path.relative_to(ROOT)} links {target}"
    assert links >= 1  # the README's


def test_every_cited_section_and_ambiguity_id_exists():
    spec = SPEC.read_text(encoding="utf-8")
    sections = set(re.findall(r"(?m)^#+\s+([0-9]+(?:\.[0-9]+)*)\.?\s", spec))
    ambiguities = set(re.findall(r"AMB-[0-9]+", spec))
    cited_sections = cited_ids = 0
    for path, text in TEXT.items():
        for number in re.findall(r"§\s?([0-9]+(?:\.[0-9]+)*)", text):
            cited_sections += 1
            assert number.rstrip(".") in sections, f"{path.relative_to(ROOT)} cites §{number}, not in docs/RULES.md"
        for amb in re.findall(r"AMB-[0-9]+", text):
            cited_ids += 1
            assert amb in ambiguities, f"{path.relative_to(ROOT)} cites {amb}, not in docs/RULES.md"
    assert cited_sections > 100 and cited_ids > 10
